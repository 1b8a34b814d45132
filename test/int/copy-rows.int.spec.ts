import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COPY_FROM_ROWS, insertNewRows } from '../../platform/db/copy-rows.js';
import type { Db } from '../../platform/db/db.js';
import { insertRowsSkippingTaken, newRowsStatement, type InsertColumn } from '../../platform/db/unnest-insert.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { openScratchPglite } from '../support/embedded-cluster.js';

/**
 * insertNewRows (COPY under a savepoint, the conflict-skipping insert when a key is taken) and
 * newRowsStatement (the same insert with the values as literals) must leave exactly what
 * INSERT … ON CONFLICT DO NOTHING leaves, on both engines.
 */
interface Row {
  id: string;
  code: string | null;
  note: string | null;
  at: Date;
  flag: boolean;
}

const COLUMNS: readonly InsertColumn<Row>[] = [
  ['id', 'text'],
  ['code', 'text'],
  ['note', 'text'],
  ['at', 'timestamptz'],
  ['flag', 'boolean'],
];

const table = (name: string) => `CREATE TABLE ${name} (id text PRIMARY KEY, code text, note text, at timestamptz NOT NULL, flag boolean NOT NULL);
  CREATE UNIQUE INDEX ${name}_by_code ON ${name} (code) WHERE code IS NOT NULL;`;

const row = (id: string, code: string | null, note: string | null = null): Row => ({ id, code, note, at: new Date('2026-06-01T12:00:00.123Z'), flag: id.length % 2 === 0 });

/** Enough rows of their own to make a batch go by COPY (small batches go by the insert). */
const filler = (prefix: string) => Array.from({ length: COPY_FROM_ROWS }, (_, index) => row(`${prefix}${index}`, `${prefix}code${index}`, `filler ${index}`));

const SMALL_BATCHES: Row[][] = [
  // Every character COPY's text format gives a meaning of its own, unicode, and a literal \N.
  [row('a', 'c1', 'tab\there'), row('b', null, 'line\nbreak\r\\N back\\slash'), row('c', 'c3', 'é 😀 \\t')],
  // A taken id, a taken code, a repeat inside the batch (the first wins) and new rows.
  [row('a', 'c9', 'again'), row('d', 'c1', 'code taken'), row('e', 'c5', 'first'), row('e', 'c6', 'second'), row('f', null, null)],
  // Nothing taken again: COPY after a fallback in the same transaction.
  [row('g', 'c7', 'after')],
];
/** The same batches, each large enough to go by COPY. */
const LARGE_BATCHES = SMALL_BATCHES.map((batch, index) => [...batch, ...filler(`x${index}-`)]);

async function contents(db: Db, name: string) {
  return (await db.query(`SELECT id, code, note, at, flag FROM ${name} ORDER BY id`)).rows;
}

async function check(db: Db, batches: Row[][]) {
  await db.exec('DROP TABLE IF EXISTS by_copy, by_insert, by_statement');
  await db.exec(`${table('by_copy')} ${table('by_insert')} ${table('by_statement')}`);
  await db.transaction(async (tx) => {
    for (const batch of batches) await insertNewRows(tx, 'by_copy', COLUMNS, batch);
  });
  await db.transaction(async (tx) => {
    for (const batch of batches) await insertRowsSkippingTaken(tx, 'by_insert', COLUMNS, batch);
  });
  await db.execAtomically([...batches, []].map((batch) => newRowsStatement('by_statement', COLUMNS, batch)).filter(Boolean).join(';\n'));
  const copied = await contents(db, 'by_copy');
  expect(copied).toEqual(await contents(db, 'by_insert'));
  expect(await contents(db, 'by_statement')).toEqual(copied);
  expect(copied.map((r) => r.id as string).filter((id) => !id.startsWith('x'))).toEqual(['a', 'b', 'c', 'e', 'f', 'g']);
  expect(copied).toHaveLength(6 + batches.flat().filter((r) => r.id.startsWith('x')).length);
  expect(copied.find((r) => r.id === 'b')!.note).toBe('line\nbreak\r\\N back\\slash');
  expect(copied.find((r) => r.id === 'e')!.note).toBe('first');
}

describe('insertNewRows', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('on Postgres: the rows ON CONFLICT DO NOTHING keeps, values exact, by COPY and by the insert', async () => {
    await check(database.db, LARGE_BATCHES);
    await check(database.db, SMALL_BATCHES);
  });

  it('on Postgres: a failure other than a taken key fails the transaction and writes nothing', async () => {
    await database.db.exec('CREATE TABLE strict (id text PRIMARY KEY, code text, note text, at timestamptz NOT NULL, flag boolean NOT NULL CHECK (flag))');
    const failing = database.db.transaction((tx) => insertNewRows(tx, 'strict', COLUMNS, [row('a', null), row('bb', null), ...filler('x')]));
    await expect(failing).rejects.toThrow(/check constraint/);
    expect(await contents(database.db, 'strict')).toEqual([]);
  });

  it('on Postgres: statements run atomically write nothing when one fails', async () => {
    await database.db.exec('CREATE TABLE strict_statement (id text PRIMARY KEY, code text, note text, at timestamptz NOT NULL, flag boolean NOT NULL CHECK (flag))');
    const statements = [newRowsStatement('strict_statement', COLUMNS, [row('aa', null)]), newRowsStatement('strict_statement', COLUMNS, [row('b', null)])];
    await expect(database.db.execAtomically(statements.join(';\n'))).rejects.toThrow(/check constraint/);
    expect(await contents(database.db, 'strict_statement')).toEqual([]);
    expect(newRowsStatement('strict_statement', COLUMNS, [])).toBe('');
  });

  it('on Postgres outside a transaction: the pool lends a session for the COPY and takes it back', async () => {
    await database.db.exec('CREATE TABLE pooled (id text PRIMARY KEY)');
    await database.db.copyFrom('pooled', ['id'], 'x\ny\n');
    await expect(database.db.copyFrom('pooled', ['id'], 'z\nx\n')).rejects.toMatchObject({ code: '23505' });
    const { rows } = await database.db.query<{ id: string }>('SELECT id FROM pooled ORDER BY id');
    expect(rows.map((row) => row.id)).toEqual(['x', 'y']);
  });

  it('on the embedded engine: the same rows', async () => {
    const db = await openScratchPglite();
    try {
      await check(db, LARGE_BATCHES);
      await check(db, SMALL_BATCHES);
    } finally {
      await db.close();
    }
  });
});
