import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../platform/db/db.js';
import { tableChecksum } from '../../platform/projection/checksum.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { openScratchPglite } from '../support/embedded-cluster.js';

// The checksum in steps (ranges of pages, one statement each) must be the one-statement checksum:
// a replay on the embedded engine compares with it, and equal checksums mean identical tables.
let postgres: TestDatabase;
let pglite: Db;
beforeAll(async () => {
  postgres = await createTestDatabase({ migrate: false });
  pglite = await openScratchPglite();
});
afterAll(async () => {
  await postgres?.drop();
  await pglite?.close();
});

const engines = () => [['postgres', postgres.db], ['pglite', pglite]] as const;

async function fill(db: Db, table: string, rows: number, deleteEvery = 0) {
  await db.query(`DROP TABLE IF EXISTS ${table}`);
  await db.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, name text, amount numeric, at timestamptz)`);
  await db.query(
    `INSERT INTO ${table} SELECT i, repeat(md5(i::text), 3), i * 1.25, timestamptz '2026-01-01' + i * interval '1 second' FROM generate_series(1, $1::int) AS i`,
    [rows],
  );
  if (deleteEvery > 0) await db.query(`DELETE FROM ${table} WHERE id % $1 = 0`, [deleteEvery]);
}

describe('a table checksum in steps', () => {
  it('equals the one-statement checksum on tables of many pages, with gaps, and empty (both engines)', async () => {
    for (const [engine, db] of engines()) {
      // About 40 rows a page: 30,000 rows span several steps of 128 pages.
      await fill(db, 'wide', 30_000, 7);
      const { rows: size } = await db.query<{ pages: number }>(`SELECT (pg_relation_size('wide') / 8192)::int AS pages`);
      expect(size[0]!.pages, engine).toBeGreaterThan(3 * 128);
      const whole = await tableChecksum(db, 'wide');
      expect(whole.rows, engine).toBe(String(30_000 - Math.floor(30_000 / 7)));
      expect(await tableChecksum(db, 'wide', undefined, true), engine).toEqual(whole);
      await fill(db, 'empty', 0);
      expect(await tableChecksum(db, 'empty', undefined, true), engine).toEqual({ rows: '0', md5: '' });
      expect(await tableChecksum(db, 'empty'), engine).toEqual({ rows: '0', md5: '' });
    }
  }, 120_000);

  it('equals it for any small table (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 5 }), async (rows, deleteEvery) => {
        await fill(pglite, 'small', rows, deleteEvery);
        expect(await tableChecksum(pglite, 'small', undefined, true)).toEqual(await tableChecksum(pglite, 'small'));
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
