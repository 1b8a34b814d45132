/**
 * The columns of an export and the cells of its rows, the same for every format. A cell is in
 * the column's kind:
 *
 * | kind | cell | ndjson | CSV | Parquet |
 * |---|---|---|---|---|
 * | text | string | string | text | VARCHAR |
 * | integer, double | number | number | digits | INTEGER, DOUBLE |
 * | bigint | decimal string (int64) | number | digits | BIGINT |
 * | decimal | exact decimal string | string | text | VARCHAR (cast it) |
 * | boolean | boolean | true/false | true/false | BOOLEAN |
 * | timestamp | RFC 3339 text, UTC | string | text | TIMESTAMPTZ |
 * | json | any JSON value | nested as it is | JSON text | JSON |
 *
 * null is null in ndjson, an empty unquoted field in CSV (an empty string is `""`), NULL in Parquet.
 */
export type ColumnKind = 'text' | 'integer' | 'bigint' | 'double' | 'decimal' | 'boolean' | 'timestamp' | 'json';

/** A value in its column's kind (see the table above). */
export type Cell = unknown;

export interface ExportColumn {
  name: string;
  kind: ColumnKind;
  nullable: boolean;
  doc?: string;
  /** Event exports: the event types that carry the column (absent: every row has it). */
  eventTypes?: string[];
  /** Event exports: the Avro type of the field, as the schema writes it. */
  avro?: unknown;
}

const DAY_MS = 86_400_000;
const twoDigits = (value: number) => (value < 10 ? `0${value}` : `${value}`);
const threeDigits = (value: number) => (value < 10 ? `00${value}` : value < 100 ? `0${value}` : `${value}`);

/**
 * A formatter of epoch milliseconds as RFC 3339 text, always UTC with milliseconds: the same text
 * as Date.prototype.toISOString. The date part is kept from the last call, so a column of times
 * from the same day (nearly every row of an export) costs some integer arithmetic instead of a
 * Date and its formatting, which took about a tenth of a CSV export's time. One per column: two
 * columns of different days would take turns replacing the kept day.
 */
export function isoTimeFormatter(): (ms: number) => string {
  let keptDay = Number.NaN;
  let datePart = '';
  return (ms) => {
    // Not a whole millisecond (or not a time at all): as Date writes it, or throws.
    if (!Number.isInteger(ms)) return new Date(ms).toISOString();
    const day = Math.floor(ms / DAY_MS);
    if (day !== keptDay) {
      const text = new Date(day * DAY_MS).toISOString();
      // A year outside 0000-9999 is written with a sign and six digits.
      if (text.length !== 24) return new Date(ms).toISOString();
      keptDay = day;
      datePart = text.slice(0, 11);
    }
    let rest = ms - day * DAY_MS;
    const hours = Math.floor(rest / 3_600_000);
    rest -= hours * 3_600_000;
    const minutes = Math.floor(rest / 60_000);
    rest -= minutes * 60_000;
    const seconds = Math.floor(rest / 1000);
    return `${datePart}${twoDigits(hours)}:${twoDigits(minutes)}:${twoDigits(seconds)}.${threeDigits(rest - seconds * 1000)}Z`;
  };
}

/** The Parquet (DuckDB) type of each kind; JSON is DuckDB's JSON type, a string annotated as JSON. */
export const PARQUET_TYPES: Record<ColumnKind, string> = {
  text: 'VARCHAR',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  double: 'DOUBLE',
  decimal: 'VARCHAR',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMPTZ',
  json: 'JSON',
};

/** Microseconds since the epoch of an RFC 3339 UTC text with up to six fraction digits. */
export function isoToMicros(text: string): bigint {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/.exec(text);
  if (!match) throw new Error(`not an RFC 3339 UTC time: ${text}`);
  return BigInt(Date.parse(`${match[1]}Z`)) * 1000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}
