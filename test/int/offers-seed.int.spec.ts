import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProjection } from '../../platform/projection/runner.js';
import { partnerOfferProjections } from '../../projections/offers/projections.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { seedCatalog } from '../../services/admin/seed/catalog.js';
import { seededRandom, seedSize } from '../../services/admin/seed/seed-context.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { waitFor } from '../support/wait-for.js';

// A small seeded catalog (SQL log: the data set, not the backbone, is under test) still covers
// every kind, status, flag, link shape and snapshot case the offer routes branch on.
let t: TestRuntime;
beforeAll(async () => {
  t = await createTestRuntime({ eventLog: 'sql' });
  await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
  await seedCatalog({
    runtime: t.runtime,
    size: seedSize(60),
    random: seededRandom(7),
    now: () => new Date('2026-03-01T00:00:00Z'),
    progress: () => ({ tick() {}, done() {} }),
    shared: new Map(),
  });
  const running = await Promise.all(partnerOfferProjections.map((projection) => startProjection(projection, { db: t.runtime.db, eventLog: t.runtime.eventLog })));
  try {
    await waitFor(async () => (await Promise.all(running.map((p) => p.lag()))).flat().every((p) => p.lag === 0), { what: 'seed projected' });
  } finally {
    await Promise.all(running.map((p) => p.stop()));
  }
});
afterAll(async () => t?.close());

const values = async (sql: string) => (await t.runtime.db.query<{ v: string }>(sql)).rows.map((row) => row.v).sort();

describe('seedCatalog', () => {
  it('covers every kind and status pair and every flag', async () => {
    expect(await values(`SELECT DISTINCT kind || '/' || status AS v FROM offers`)).toEqual(
      ['local', 'remote'].flatMap((kind) => ['active', 'expired', 'paused', 'pending', 'rejected'].map((status) => `${kind}/${status}`)).sort(),
    );
    const { rows } = await t.runtime.db.query<Record<string, boolean>>(
      `SELECT bool_or(deleted) AS deleted, bool_or(delisted) AS delisted, bool_or(test_only) AS test_only,
         bool_or(kind = 'local' AND NOT has_details) AS local_without_details FROM offers`,
    );
    expect(rows[0]).toEqual({ deleted: true, delisted: true, test_only: true, local_without_details: true });
    expect(await values('SELECT count(*)::text AS v FROM offers')).toEqual(['60']);
  });

  it('has links of every shape, several snapshot languages, and targeting on real ids', async () => {
    expect(await values('SELECT DISTINCT shape AS v FROM tracked_links')).toEqual(['instance_uuid', 'short_code', 'static_path']);
    expect((await values(`SELECT DISTINCT coalesce(language, '?') AS v FROM offer_snapshots`)).length).toBeGreaterThanOrEqual(4);
    expect(await values('SELECT DISTINCT active::text AS v FROM offer_snapshots')).toEqual(['false', 'true']);
    expect(await values('SELECT max(rule_index)::text AS v FROM offer_targeting')).toEqual(['9']);
    const { rows } = await t.runtime.db.query<{ missing: string }>(
      `SELECT count(*)::text AS missing FROM offer_targeting t
       WHERE NOT EXISTS (SELECT 1 FROM geo_full_locations l WHERE l.location_id = t.location_id)`,
    );
    expect(rows[0]!.missing).toBe('0');
  });

  it('gives the same shape for the same seed value', async () => {
    const plan = async () => {
      const again = await createTestRuntime({ eventLog: 'sql' });
      try {
        await loadFullCatalog(again.runtime.db, { file: GEO_EXCERPT_FILE });
        const shared = new Map<string, unknown>();
        await seedCatalog({ runtime: again.runtime, size: seedSize(20), random: seededRandom(3), now: () => new Date('2026-03-01T00:00:00Z'), progress: () => ({ tick() {}, done() {} }), shared });
        return (shared.get('offers') as { kind: string; status: string; deleted: boolean; targeted: boolean }[]).map((o) => `${o.kind}/${o.status}/${o.deleted}/${o.targeted}`);
      } finally {
        await again.close();
      }
    };
    expect(await plan()).toEqual(await plan());
  });
});
