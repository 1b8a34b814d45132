import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_TTL_SECONDS, claimLinkCodes } from '../../commands/serves/link-code-claims.js';
import { mintLinkCodes } from '../../commands/serves/serve.js';
import type { Sql } from '../../platform/db/db.js';
import { servedLinkCodes } from '../../projections/serves/queries.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/**
 * Query hands its cards out once they are logged, before served_instances has them, so the
 * uniqueness of a link code across processes rests on link_code_claims (real Postgres).
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('link code claims', () => {
  it('a code goes to the first claim only, whoever asks next', async () => {
    expect([...(await claimLinkCodes(database.db, ['claimA01', 'claimA02']))].sort()).toEqual(['claimA01', 'claimA02']);
    expect([...(await claimLinkCodes(database.db, ['claimA02', 'claimA03']))]).toEqual(['claimA03']);
  });

  it('concurrent minters never get the same code, even when they draw the same ones', async () => {
    // Two processes whose random draws collide completely: one code each time, from one sequence.
    const draws = Array.from({ length: 40 }, (_, i) => `dupe${String(i).padStart(4, '0')}`);
    const drawer = () => {
      let next = 0;
      return () => draws[next++ % draws.length]!;
    };
    const [first, second] = await Promise.all([mintLinkCodes({ db: database.db }, 10, drawer()), mintLinkCodes({ db: database.db }, 10, drawer())]);
    expect(first).toHaveLength(10);
    expect(second).toHaveLength(10);
    expect(first.filter((code) => second.includes(code))).toEqual([]);
  });

  it('a code a served card holds is not handed out, though nobody claimed it', async () => {
    await database.db.query(
      `INSERT INTO served_instances (offer_instance_id, application_id, offer_id, served_at, environment, anonymous, link_code)
       VALUES ('01a20000-0000-7000-8000-00000000c0de', 'app', 'offer', now(), 'live', false, 'servedX1')`,
    );
    const draws = ['servedX1', 'servedX2'];
    expect(await mintLinkCodes({ db: database.db }, 1, () => draws.shift()!)).toEqual(['servedX2']);
  });

  it('claims older than their lifetime are removed by the next claim, so the code is free again', async () => {
    await claimLinkCodes(database.db, ['agedXX01']);
    await database.db.query(`UPDATE link_code_claims SET claimed_at = now() - make_interval(secs => $1 + 1) WHERE code = 'agedXX01'`, [CLAIM_TTL_SECONDS]);
    await claimLinkCodes(database.db, ['otherX01']);
    const { rows } = await database.db.query<{ code: string }>(`SELECT code FROM link_code_claims WHERE code = 'agedXX01'`);
    expect(rows).toEqual([]);
    expect([...(await claimLinkCodes(database.db, ['agedXX01']))]).toEqual(['agedXX01']);
  });

  it('the served-code check probes the index even before the table has statistics (no scan of every card)', async () => {
    // A new database, or read models a replay swapped in, has no statistics until its first ANALYZE.
    await database.db.exec('ALTER TABLE served_instances SET (autovacuum_enabled = false)');
    await database.db.query(
      `INSERT INTO served_instances (offer_instance_id, application_id, offer_id, served_at, environment, anonymous, link_code)
       SELECT 'bulk-' || i, 'app', 'offer', now(), 'live', false, 'bulk' || lpad(i::text, 6, '0') FROM generate_series(1, 50000) AS i`,
    );
    const statements: { text: string; params: unknown[] }[] = [];
    const recording: Sql = { ...database.db, query: (text: string, params?: unknown[]) => (statements.push({ text, params: params ?? [] }), database.db.query(text, params)) } as Sql;
    const codes = Array.from({ length: 256 }, (_, i) => `bulk${String(i * 100 + 1).padStart(6, '0')}`);
    expect((await servedLinkCodes(recording, [...codes, 'absent01'])).sort()).toEqual([...codes].sort());
    expect(statements).toHaveLength(1);
    const { rows } = await database.db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${statements[0]!.text}`, statements[0]!.params);
    const plan = JSON.stringify(rows[0]!['QUERY PLAN']);
    expect(plan).toContain('served_instances_by_link_code');
    expect(plan).not.toContain('Seq Scan');
  });
});
