import { createHash } from 'node:crypto';
import type { Sql } from '../db/db.js';
import { escapeIdentifier, qualified } from '../db/identifier.js';

export interface TableChecksum {
  /** Row count (int8 as a decimal string). */
  rows: string;
  /** Digest of every row's text form, independent of row order; '' when the table is empty. */
  md5: string;
}

/**
 * Equal checksums mean identical tables, byte for byte in every column's text form. Each row's
 * md5 is split into two 64-bit halves that are summed exactly (numeric), so the digest does not
 * depend on row order and needs neither a sort nor the whole table in one value: it stays cheap
 * on millions of rows. `inSteps` reads the table a range of pages per statement (checksumInSteps),
 * for a table nothing writes meanwhile.
 */
export async function tableChecksum(sql: Sql, table: string, schema?: string, inSteps = false): Promise<TableChecksum> {
  const name = schema ? qualified(schema, table) : escapeIdentifier(table);
  if (inSteps) return checksumInSteps(sql, name);
  const { rows } = await sql.query<TableChecksum>(
    `SELECT count(*)::text AS rows, coalesce(md5(${half(1)}::text || '/' || ${half(17)}::text), '') AS md5
     FROM (SELECT md5(t::text) AS h FROM ${name} AS t) AS hashed`,
  );
  return rows[0]!;
}

/** One half of every row's md5 as a 64-bit integer, summed exactly. */
const half = (start: number) => `sum(('x' || substr(h, ${start}, 16))::bit(64)::bigint::numeric)`;

/** Table pages (8 kB each) one statement of a checksum in steps reads. */
const PAGES_PER_STEP = 128;

/**
 * The same checksum as one statement gives, summed over ranges of the table's pages in turn: on
 * the embedded engine a statement holds the process's only thread, and one over a whole large
 * table kept the service from answering for a quarter of a second. Only for a table nothing
 * writes meanwhile (the replay's copies and rebuilt tables): the steps are separate statements.
 */
async function checksumInSteps(sql: Sql, name: string): Promise<TableChecksum> {
  const { rows: size } = await sql.query<{ pages: number }>(`SELECT (pg_relation_size($1::regclass) / current_setting('block_size')::int)::int AS pages`, [name]);
  let count = 0n;
  let sums: [bigint, bigint] | undefined;
  for (let from = 0; from < size[0]!.pages; from += PAGES_PER_STEP) {
    const { rows } = await sql.query<{ rows: string; high: string | null; low: string | null }>(
      `SELECT count(*)::text AS rows, ${half(1)}::text AS high, ${half(17)}::text AS low
       FROM (SELECT md5(t::text) AS h FROM ${name} AS t WHERE t.ctid >= '(${from},0)'::tid AND t.ctid < '(${from + PAGES_PER_STEP},0)'::tid) AS hashed`,
    );
    const step = rows[0]!;
    count += BigInt(step.rows);
    if (step.high !== null && step.low !== null) sums = [(sums?.[0] ?? 0n) + BigInt(step.high), (sums?.[1] ?? 0n) + BigInt(step.low)];
  }
  // md5 of the sums' decimal text, as Postgres writes a whole numeric.
  return { rows: count.toString(), md5: sums ? createHash('md5').update(`${sums[0]}/${sums[1]}`).digest('hex') : '' };
}

/** Columns of the table's primary key, in key order; empty when it has none. */
async function primaryKey(sql: Sql, schema: string, table: string): Promise<string[]> {
  const { rows } = await sql.query<{ name: string }>(
    `SELECT a.attname AS name
     FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
     WHERE i.indrelid = $1::regclass AND i.indisprimary
     ORDER BY array_position(i.indkey::int2[], a.attnum)`,
    [qualified(schema, table)],
  );
  return rows.map((row) => row.name);
}

export interface TableComparison {
  table: string;
  left: TableChecksum;
  right: TableChecksum;
  /** Present when the checksums differ. */
  difference?: {
    /** Rows (by their text form) only on the left, and only on the right. */
    onlyLeft: number;
    onlyRight: number;
    /** Up to the asked number of primary keys (column → value) of rows that differ; the whole row for a table without one. */
    keys: Record<string, unknown>[];
    /** How many distinct keys differ in all (`keys` holds at most the asked number of them). */
    keyCount: number;
  };
}

/**
 * Compares one table in two schemas by checksum; when they differ, also counts the rows found on
 * one side only and lists up to `limit` keys of those rows (a changed row shows its key once).
 */
export async function compareTable(sql: Sql, table: string, left: string, right: string, limit: number, inSteps = false): Promise<TableComparison> {
  const checksums = { table, left: await tableChecksum(sql, table, left, inSteps), right: await tableChecksum(sql, table, right, inSteps) };
  if (checksums.left.rows === checksums.right.rows && checksums.left.md5 === checksums.right.md5) return checksums;
  // A copy made by CREATE TABLE AS has no key: take it from the other side.
  const leftKey = await primaryKey(sql, left, table);
  const pk = leftKey.length > 0 ? leftKey : await primaryKey(sql, right, table);
  const key = `${pk.length > 0 ? `json_build_object(${pk.map((column) => `'${column.replace(/'/g, "''")}', t.${escapeIdentifier(column)}`).join(', ')})` : 'row_to_json(t)'}::text`;
  const rowsOf = (schema: string) => `SELECT t::text AS row, ${key} AS key FROM ${qualified(schema, table)} AS t`;
  const { rows } = await sql.query<{ only_left: string; only_right: string; key_count: string; keys: string[] }>(
    `WITH only_left AS (${rowsOf(left)} EXCEPT ALL ${rowsOf(right)}), only_right AS (${rowsOf(right)} EXCEPT ALL ${rowsOf(left)}),
       differing AS (SELECT key FROM only_left UNION SELECT key FROM only_right)
     SELECT (SELECT count(*) FROM only_left) AS only_left, (SELECT count(*) FROM only_right) AS only_right,
       (SELECT count(*) FROM differing) AS key_count,
       ARRAY(SELECT key FROM differing ORDER BY key LIMIT $1) AS keys`,
    [limit],
  );
  const { only_left, only_right, key_count, keys } = rows[0]!;
  return {
    ...checksums,
    difference: {
      onlyLeft: Number(only_left),
      onlyRight: Number(only_right),
      keys: keys.map((text) => JSON.parse(text) as Record<string, unknown>),
      keyCount: Number(key_count),
    },
  };
}
