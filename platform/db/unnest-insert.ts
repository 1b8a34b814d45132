import { isoTimeFormatter } from '../time/iso-time.js';
import type { Sql } from './db.js';
import { escapeLiteral } from './identifier.js';
import { storableText } from './storable-text.js';

/**
 * A column of a set-based insert: its name, the Postgres array element type it is sent as, and
 * how its value is taken from a row (default: the row's property of that name).
 */
export type InsertColumn<R> = readonly [name: string, type: string, value?: (row: R) => unknown];

/**
 * Inserts one table's rows in one statement (one array parameter per column, joined by unnest),
 * skipping every row whose unique key is taken: the first row of a key wins. Values are sent as
 * they are (Dates as ISO text for timestamptz), so exact decimals stay strings.
 */
export async function insertRowsSkippingTaken<R>(tx: Sql, table: string, columns: readonly InsertColumn<R>[], rows: readonly R[]): Promise<void> {
  if (rows.length === 0) return;
  const values = columns.map(([name, , valueOf]) => {
    const taken = valueOf ? rows.map(valueOf) : rows.map((row) => (row as Record<string, unknown>)[name]);
    const isoTime = isoTimeFormatter();
    return taken.map((value) => (value instanceof Date ? isoTime(value.getTime()) : typeof value === 'string' ? storableText(value) : value));
  });
  const arrays = columns.map(([, type], index) => `$${index + 1}::${type}[]`);
  await tx.query(
    `INSERT INTO ${table} (${columns.map(([name]) => name).join(', ')}) SELECT * FROM unnest(${arrays.join(', ')}) ON CONFLICT DO NOTHING`,
    values,
  );
}

/** A value as a typed SQL literal: null, or its text (ISO for a Date, JSON for an object) cast to the column's type. */
function literal(value: unknown, type: string, isoTime: (ms: number) => string): string {
  if (value === null || value === undefined) return 'NULL';
  const text = value instanceof Date ? isoTime(value.getTime()) : typeof value === 'object' ? JSON.stringify(value) : storableText(String(value));
  return `${escapeLiteral(text)}::${type}`;
}

/**
 * insertRowsSkippingTaken as one parameter-free statement (values as escaped literals), to be sent
 * along with others in one round trip; '' for no rows. Made for small batches: beyond a few
 * hundred rows, COPY (copy-rows.ts) costs less.
 */
export function newRowsStatement<R>(table: string, columns: readonly InsertColumn<R>[], rows: readonly R[]): string {
  if (rows.length === 0) return '';
  const isoTimes = columns.map(() => isoTimeFormatter());
  const tuples = rows.map((row) => {
    const values = columns.map(([name, type, valueOf], index) => literal(valueOf ? valueOf(row) : (row as Record<string, unknown>)[name], type, isoTimes[index]!));
    return `(${values.join(', ')})`;
  });
  return `INSERT INTO ${table} (${columns.map(([name]) => name).join(', ')}) VALUES ${tuples.join(',\n')} ON CONFLICT DO NOTHING`;
}
