import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../platform/db/pglite.js';
import { waitFor } from '../support/wait-for.js';
import { emptyCluster } from '../support/embedded-cluster.js';

/**
 * The embedded engine has no checkpointer and no autovacuum: without its own maintenance the
 * write-ahead log grew past max_wal_size for as long as the service ran, and a table that sees
 * deletes grew without bound. On the real engine, in a folder of its own.
 */
const dir = mkdtempSync(join(tmpdir(), 'embedded-maintenance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const walBytes = (dataDir: string) =>
  readdirSync(join(dataDir, 'pg_wal')).filter((name) => /^[0-9A-F]{24}$/.test(name)).reduce((sum, name) => sum + statSync(join(dataDir, 'pg_wal', name)).size, 0);

describe('the embedded database maintains itself', () => {
  it('checkpoints (pg_wal stays within max_wal_size) and vacuums (a table with deletes reuses its space)', async () => {
    const dataDir = emptyCluster(join(dir, 'pg'));
    const lines: string[] = [];
    let vacuums = 0;
    const db = await openPglite(dataDir, {
      maintenance: { checkpointMs: 200, vacuumMs: 200, log: (line) => lines.push(line), done: (statement) => void (statement === 'VACUUM' && (vacuums += 1)) },
    });
    try {
      const checkpointAt = async () => (await db.query<{ lsn: string }>('SELECT checkpoint_lsn::text AS lsn FROM pg_control_checkpoint()')).rows[0]!.lsn;
      const tableBytes = async () => Number((await db.query<{ size: string }>(`SELECT pg_total_relation_size('churn')::text AS size`)).rows[0]!.size);
      await db.query('CREATE TABLE churn (id int, filler text)');
      const churn = async () => {
        await db.query('DELETE FROM churn');
        await db.query("INSERT INTO churn SELECT g, repeat(md5(g::text), 30) FROM generate_series(1, 5000) g");
      };
      const first = await checkpointAt();
      await churn();
      await waitFor(async () => (await checkpointAt()) !== first, { what: 'a checkpoint of its own', timeoutMs: 10_000 });
      // Vacuumed between rounds, the table stays near one round's rows instead of growing with each.
      await churn();
      const settled = await tableBytes();
      // Every fourth round waits for a VACUUM to complete, so deleted rows' space can be reused.
      for (let round = 0; round < 40; round += 1) {
        await churn();
        if (round % 4 === 3) {
          const before = vacuums;
          await waitFor(() => vacuums > before, { what: 'a VACUUM of its own', timeoutMs: 10_000 });
        }
      }
      expect(await tableBytes()).toBeLessThan(settled * 6);
      const maxWal = (await db.query<{ bytes: string }>("SELECT setting::bigint * 1024 * 1024 AS bytes FROM pg_settings WHERE name = 'max_wal_size'")).rows[0]!;
      expect(walBytes(dataDir)).toBeLessThanOrEqual(Number(maxWal.bytes) + 64 * 1024 * 1024);
      expect(lines).toEqual([]);
    } finally {
      await db.close();
    }
  }, 60_000);
});
