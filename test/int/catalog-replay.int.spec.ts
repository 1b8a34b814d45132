import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { seedAccounts } from '../../services/admin/seed/accounts.js';
import { seedCatalog } from '../../services/admin/seed/catalog.js';
import { seedServing } from '../../services/admin/seed/serving.js';
import { seededRandom, seedSize } from '../../services/admin/seed/seed-context.js';
import { projections, startProjectors } from '../../services/projector/projectors.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { replayProjection } from '../support/replay.js';
import { tableChecksum } from '../../platform/projection/checksum.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The log is the source of truth: seed a data set through the events, build every read model,
 * drop them all and re-project from the log; every table must come back identical.
 */
describe('seed, drop the read models, re-project (Kafka)', () => {
  let t: TestRuntime;
  const checksums = async () =>
    Object.fromEntries(
      await Promise.all(
        projections.flatMap((projection) => projection.tables).map(async (table) => [table, await tableChecksum(t.runtime.db, table)] as const),
      ),
    );

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
    await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
    const context = {
      runtime: t.runtime,
      size: seedSize(80),
      random: seededRandom(11),
      now: () => new Date('2026-06-01T12:00:00Z'),
      progress: () => ({ tick() {}, done() {} }),
      shared: new Map<string, unknown>(),
    };
    await seedAccounts(context);
    await seedCatalog(context);
    await seedServing(context, 400);
    const projectors = await startProjectors(t.runtime);
    try {
      await waitFor(async () => (await projectors.totalLag()) === 0, { what: 'seed projected', timeoutMs: 120_000 });
    } finally {
      await projectors.stop();
    }
  });
  afterAll(async () => t?.close());

  it('rebuilds every read model identically', async () => {
    const before = await checksums();
    // Every projection has rows, so an empty rebuild could not pass.
    for (const [table, checksum] of Object.entries(before)) {
      if (!['catalog_entries', 'catalog_entry_tallies'].includes(table)) expect(Number(checksum.rows), table).toBeGreaterThan(0);
    }
    for (const projection of projections) await replayProjection(t.runtime.db, t.runtime.eventLog, projection);
    expect(await checksums()).toEqual(before);
    // One rebuild per projection, one after the other, each with its own consumer: 38 s in a
    // loaded CI run, too near the default 60 s.
  }, 180_000);
});
