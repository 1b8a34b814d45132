import type { Sql } from './db.js';

/** A column of a set-based insert: its name and the Postgres array element type it is sent as. */
export type InsertColumn<R> = readonly [name: keyof R & string, type: string];

/**
 * Inserts many rows in one statement: one array parameter per column, joined by unnest. Values
 * are sent as they are (Dates as ISO text for timestamptz), so the caller keeps exact decimals as
 * strings. `onConflict` is appended verbatim (e.g. `ON CONFLICT DO NOTHING`).
 */
export async function insertRows<R>(tx: Sql, table: string, columns: readonly InsertColumn<R>[], rows: readonly R[], onConflict = ''): Promise<void> {
  if (rows.length === 0) return;
  const names = columns.map(([name]) => name).join(', ');
  const arrays = columns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ');
  const values = columns.map(([name]) => rows.map((row) => {
    const value = row[name];
    return value instanceof Date ? value.toISOString() : value;
  }));
  await tx.query(`INSERT INTO ${table} (${names}) SELECT * FROM unnest(${arrays}) ${onConflict}`, values);
}
