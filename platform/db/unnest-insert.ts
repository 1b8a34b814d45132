import type { Sql } from './db.js';

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
    return taken.map((value) => (value instanceof Date ? value.toISOString() : value));
  });
  const arrays = columns.map(([, type], index) => `$${index + 1}::${type}[]`);
  await tx.query(
    `INSERT INTO ${table} (${columns.map(([name]) => name).join(', ')}) SELECT * FROM unnest(${arrays.join(', ')}) ON CONFLICT DO NOTHING`,
    values,
  );
}
