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
