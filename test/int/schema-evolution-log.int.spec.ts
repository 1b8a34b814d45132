import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import avro from 'avsc';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { offerUpsertedEvent } from '../../commands/offers/upsert.js';
import type { EventLog } from '../../platform/events/event-log.js';
import { kafkaEventLog } from '../../platform/events/kafka-event-log.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog, type KnownSchema } from '../../platform/events/schema-catalog.js';
import { sqlCodec } from '../../platform/events/sql-codec.js';
import { sqlEventLog } from '../../platform/events/sql-event-log.js';
import { replay } from '../../platform/projection/replay.js';
import { offerInternalProjection } from '../../projections/offers/internal/projection.js';
import { offersProjection } from '../../projections/offers/projection.js';
import { readVersions } from '../../schemas/codegen/versions.js';
import { EventType } from '../../schemas/generated/events.js';
import { exportEvents } from '../../services/export/export-events.js';
import { parseExportFlags } from '../../services/export/options.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { readExport } from '../support/export-files.js';
import { waitFor } from '../support/wait-for.js';

/**
 * An offer appended by a build whose OfferUpserted was its first version (before destination_url),
 * with that version's own schema id, read by this build: the projections apply it with the added
 * field's default, a replay rebuilds the same read models from it, and an export writes it with
 * its writer schema's id and the default. On the real registry (the id of v1, registered under
 * BACKWARD after this build's v2) and on the embedded one (a row of its own).
 */
const [v1] = readVersions()[EventType.OfferUpserted]!;
const v1Catalog = (): Map<string, KnownSchema> => {
  const catalog = loadSchemaCatalog();
  catalog.set(EventType.OfferUpserted, { ...catalog.get(EventType.OfferUpserted)!, schema: v1!, avroType: avro.Type.forSchema(v1 as avro.Schema), text: JSON.stringify(v1) });
  return catalog;
};

describe.each([['kafka'], ['sql']] as const)('an event of an earlier schema version on the %s log', (backend) => {
  let t: TestRuntime;
  let earlierBuild: EventLog;
  let projectors: RunningProjectors | undefined;
  const dir = mkdtempSync(join(tmpdir(), `evolution-${backend}-`));

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: backend });
    earlierBuild =
      backend === 'kafka'
        ? await kafkaEventLog(registryCodec(inject('stack').schemaRegistryUrl, v1Catalog()), { brokers: inject('stack').kafkaBrokers, topicPrefix: t.topicPrefix })
        : sqlEventLog(t.runtime.db, sqlCodec(t.runtime.db, v1Catalog()), { topicPrefix: t.topicPrefix });
  });
  afterAll(async () => {
    await projectors?.stop();
    await earlierBuild?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is applied with the default of the field added since, replayed to the same read models, and exported with its own schema id', async () => {
    const current = { ...offerUpsertedEvent({ partner_id: '01a20000-0000-7000-8000-0000000000e1', kind: 'local', status: 'active' }, [], new Date(Date.UTC(2026, 10, 1))) };
    const { destination_url: _added, ...written } = current;
    await earlierBuild.append('offers', [{ key: written.offer_id, type: EventType.OfferUpserted, value: written }]);
    // And one of this build, after it.
    const later = offerUpsertedEvent({ partner_id: written.partner_id, kind: 'local', status: 'active', destination_url: 'https://shop.example/later' }, [], new Date(Date.UTC(2026, 10, 2)));
    await t.runtime.eventLog.append('offers', [{ key: later.offer_id, type: EventType.OfferUpserted, value: { ...later } }]);

    projectors = await startProjectors(t.runtime, {}, [offersProjection, offerInternalProjection]);
    const internals = async () =>
      (await t.runtime.db.query<{ offer_id: string; destination_url: string | null }>('SELECT offer_id, destination_url FROM offer_internals ORDER BY offer_id')).rows;
    const offersApplied = async () => Number((await t.runtime.db.query<{ count: string }>('SELECT count(*) AS count FROM offers WHERE offer_id = ANY($1)', [[written.offer_id, later.offer_id]])).rows[0]!.count);
    // By both projections: each applies on its own, so one can be done while the other is not.
    await waitFor(async () => (await internals()).length === 2 && (await offersApplied()) === 2, { what: 'both offers to be applied by both projections', timeoutMs: 30_000 });
    expect(await internals()).toEqual(
      [
        { offer_id: written.offer_id, destination_url: null },
        { offer_id: later.offer_id, destination_url: 'https://shop.example/later' },
      ].sort((a, b) => (a.offer_id < b.offer_id ? -1 : 1)),
    );
    const { rows: offers } = await t.runtime.db.query<{ offer_id: string }>('SELECT offer_id FROM offers WHERE offer_id = $1', [written.offer_id]);
    expect(offers).toHaveLength(1);
    await projectors.stop();
    projectors = undefined;

    const report = await replay(t.runtime.db, t.runtime.eventLog, { projections: [offersProjection, offerInternalProjection] });
    expect(report.identical).toBe(true);

    const out = join(dir, 'offers.ndjson');
    const parsed = parseExportFlags({ topic: 'offers', out, format: 'ndjson' });
    if (parsed.kind !== 'events') throw new Error('not an events export');
    expect(await exportEvents(t.runtime.eventLog, { ...parsed.request, topicPrefix: t.topicPrefix })).toMatchObject({ rows: 2 });
    const { rows } = await readExport(out, 'ndjson');
    // Partitions in turn on Kafka: found by offer.
    const earlier = rows.find((row) => row.offer_id === written.offer_id);
    const newer = rows.find((row) => row.offer_id === later.offer_id);
    expect(earlier).toMatchObject({ offer_id: written.offer_id, destination_url: null });
    expect(newer).toMatchObject({ offer_id: later.offer_id, destination_url: 'https://shop.example/later' });
    // Each row names the schema it was written with: two versions, two ids.
    expect(earlier!.schema_id).not.toEqual(newer!.schema_id);
  });
});
