import type { Sql } from './db.js';

/**
 * A column of a set-based insert: its name, the Postgres array element type it is sent as, and
 * how its value is taken from a row (default: the row's property of that name).
 */
export type InsertColumn<R> = readonly [name: string, type: string, value?: (row: R) => unknown];

/** The rows of one table for insertRowsTogether. */
export interface TableRows<R> {
  table: string;
  columns: readonly InsertColumn<R>[];
  rows: readonly R[];
}

/**
 * Inserts many rows into several tables in one statement (one round trip): one array parameter
 * per column, joined by unnest. Values are sent as they are (Dates as ISO text for timestamptz),
 * so the caller keeps exact decimals as strings. Every insert but the last is a data-modifying
 * WITH clause, which Postgres runs to completion whatever the rest reads. Tables without rows are
 * left out.
 */
export async function insertRowsTogether(tx: Sql, inserts: readonly TableRows<any>[]): Promise<void> {
  const present = inserts.filter((insert) => insert.rows.length > 0);
  if (present.length === 0) return;
  const values: unknown[] = [];
  const statements = present.map((insert) => insertStatement(insert, values));
  const last = statements.pop()!;
  const clauses = statements.map((statement, index) => `inserted_${index} AS (${statement})`);
  await tx.query(clauses.length === 0 ? last : `WITH ${clauses.join(', ')} ${last}`, values);
}

/** One table's rows in one statement, skipping every row whose unique key is taken (the first row of a key wins). */
export async function insertRowsSkippingTaken<R>(tx: Sql, table: string, columns: readonly InsertColumn<R>[], rows: readonly R[]): Promise<void> {
  if (rows.length === 0) return;
  const values: unknown[] = [];
  await tx.query(`${insertStatement({ table, columns, rows }, values)} ON CONFLICT DO NOTHING`, values);
}

/** The INSERT … SELECT unnest statement of one table; its column arrays are pushed onto `values`. */
function insertStatement({ table, columns, rows }: TableRows<any>, values: unknown[]): string {
  const arrays = columns.map(([name, type, valueOf]) => {
    const taken = valueOf ? rows.map(valueOf) : rows.map((row: Record<string, unknown>) => row[name]);
    values.push(taken.map((value) => (value instanceof Date ? value.toISOString() : value)));
    return `$${values.length}::${type}[]`;
  });
  return `INSERT INTO ${table} (${columns.map(([name]) => name).join(', ')}) SELECT * FROM unnest(${arrays.join(', ')})`;
}
