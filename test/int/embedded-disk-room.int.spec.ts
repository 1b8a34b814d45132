import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DiskLowError } from '../../platform/data-dir/disk-room.js';
import { openPglite } from '../../platform/db/pglite.js';
import { ownLines, runCli } from '../support/cli.js';
import { freePort } from '../support/stack.js';
import { emptyCluster } from '../support/embedded-cluster.js';

const MB = 1024 * 1024;
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'offer-ledger-disk-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the embedded database on a disk running out of room (DATA_DIR_MIN_FREE_MB)', () => {
  it('takes no write while the disk is under the minimum, answers reads, and writes again once there is room', async () => {
    // The real engine; only the disk's reading is given, since filling a real disk is not a test's to do.
    let free = 1_000 * MB;
    const db = await openPglite(emptyCluster(join(freshDir(), 'pg')), { minFreeBytes: 128 * MB, freeBytes: async () => free, roomIntervalMs: 60_000 });
    try {
      await db.exec('CREATE TABLE t (n int)');
      await db.query('INSERT INTO t VALUES (1)');
      free = 100 * MB;
      await db.refreshRoom!();
      expect(db.room?.()).toEqual({ free_bytes: 100 * MB, min_free_bytes: 128 * MB, room: false });
      await expect(db.query('INSERT INTO t VALUES (2)')).rejects.toBeInstanceOf(DiskLowError);
      await expect(db.transaction(async (tx) => {
        expect((await tx.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 1 }]);
        await tx.query('INSERT INTO t VALUES (3)');
      })).rejects.toBeInstanceOf(DiskLowError);
      await expect(db.execAtomically('INSERT INTO t VALUES (4)')).rejects.toBeInstanceOf(DiskLowError);
      // A WITH whose parts write is a write (the link code claims are one), whatever it selects.
      await expect(db.query('WITH gone AS (DELETE FROM t WHERE n < 0), added AS (INSERT INTO t VALUES (6) RETURNING n) SELECT n FROM added')).rejects.toBeInstanceOf(DiskLowError);
      expect((await db.query<{ n: number }>('WITH counted AS (SELECT count(*)::int AS n FROM t) SELECT n FROM counted')).rows).toEqual([{ n: 1 }]);
      // Reads go on, in a transaction or not; and a DROP, which makes room, is let through.
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 1 }]);
      expect(await db.transaction(async (tx) => (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows)).toEqual([{ n: 1 }]);
      await db.exec('DROP TABLE IF EXISTS nothing_here');
      free = 200 * MB;
      await db.refreshRoom!();
      await db.query('INSERT INTO t VALUES (5)');
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 2 }]);
    } finally {
      await db.close();
    }
  });

  it('a service does not start on a disk already under the minimum: one line saying so after the opening line, exit 4', async () => {
    const dataDir = freshDir();
    const result = await runCli('services/api/main.ts', [], { DATA_DIR: dataDir, PORT: String(await freePort()), DATA_DIR_MIN_FREE_MB: '1000000' });
    expect(result.status, result.stderr).toBe(4);
    // The opening is logged first (creating one takes seconds), then the refused start is one plain line.
    expect(result.stdout).toMatch(/"msg":"embedded database: creating /);
    expect(ownLines(result.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^error: cannot start the API: DATA_DIR: the disk holding .* has \\d+ MB free, under DATA_DIR_MIN_FREE_MB \\(1000000\\).*free space on that disk`)),
    ]);
  });
});
