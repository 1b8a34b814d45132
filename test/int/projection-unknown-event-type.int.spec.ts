import avro from 'avsc';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventLog } from '../../platform/events/event-log.js';
import { kafkaEventLog } from '../../platform/events/kafka-event-log.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog, type KnownSchema } from '../../platform/events/schema-catalog.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { findServedInstances } from '../../projections/serves/queries.js';
import type { AvroRecordSchema } from '../../schemas/files.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { offerServed } from '../support/serves.js';
import { expectReplayAndExportToStopAt } from '../support/undecodable.js';
import { waitFor } from '../support/wait-for.js';

/**
 * An event of a type this build has no schema for: one a newer build added (met after a
 * rollback), or one whose `.avsc` was removed while its events stay in the log. It was read as
 * written and passed over by every projection (each applies the types it knows), so it vanished
 * from the read models without a word. It now stops its partition, named by topic, partition and
 * offset, as an event that cannot be decoded does; a replay and an export stop at it too.
 */
const withdrawn: AvroRecordSchema = {
  type: 'record',
  name: 'OfferServeWithdrawn',
  namespace: 'offerledger.serves',
  fields: [
    { name: 'offer_instance_id', type: 'string' },
    { name: 'withdrawn_at', type: { type: 'long', logicalType: 'timestamp-millis' } },
  ],
};
const withdrawnType = `${withdrawn.namespace}.${withdrawn.name}`;

/** The catalog of a build that has one more serves event than this one. */
const newerCatalog = (): Map<string, KnownSchema> => {
  const catalog = loadSchemaCatalog();
  catalog.set(withdrawnType, { topic: 'serves', path: 'serves/OfferServeWithdrawn.avsc', fullName: withdrawnType, schema: withdrawn, avroType: avro.Type.forSchema(withdrawn as avro.Schema), text: JSON.stringify(withdrawn) });
  return catalog;
};

describe('an event of a type this build has no schema for (Kafka)', () => {
  let t: TestRuntime;
  let newerBuild: EventLog;
  let running: RunningProjection | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
    newerBuild = await kafkaEventLog(registryCodec(inject('stack').schemaRegistryUrl, newerCatalog()), { brokers: inject('stack').kafkaBrokers, topicPrefix: t.topicPrefix });
  });
  afterAll(async () => {
    await running?.stop();
    await newerBuild?.close();
    await t?.close();
  });

  /** A serve of this build, keyed to share a partition with the others. */
  const serve = async (key: string) => {
    const value = offerServed(t.runtime.config.linkBase, { application_id: 'app', offer_id: 'offer' });
    await t.runtime.eventLog.append('serves', [{ key, type: EventType.OfferServed, value: { ...value } }]);
    return { id: value.offer_instance_id };
  };

  let unknown: { partition: number; offset: string };
  let before: { id: string };
  let after: { id: string };

  it('a projection stops its partition there, named, instead of passing over it; moved past it, it goes on', async () => {
    const key = 'one-key';
    before = await serve(key);
    const [appended] = await newerBuild.append('serves', [{ key, type: withdrawnType, value: { offer_instance_id: before.id, withdrawn_at: Date.now() } }]);
    unknown = { partition: appended!.partition, offset: appended!.offset };
    after = await serve(key);

    running = await startProjection(servesProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog, onError: (_name, error) => void errors.push(error.message) });
    await waitFor(() => errors.some((message) => message.includes(`the event at serves/${unknown.partition} offset ${unknown.offset} cannot be decoded (schema id `)), {
      what: 'the projection to fail on the event of an unknown type, naming it',
      timeoutMs: 30_000,
    });
    expect(errors.find((message) => message.includes('cannot be decoded'))).toContain(`is of type ${withdrawnType}, which this build has no schema in schemas/ for`);
    // The events before it in its partition are applied, none after it.
    await waitFor(async () => (await findServedInstances(t.runtime.db, [before.id])).length === 1, { what: 'the event before it to be applied' });
    expect(await findServedInstances(t.runtime.db, [after.id])).toHaveLength(0);
    await running.stop();
    running = undefined;

    // The README's way past an event that cannot be decoded.
    const next = String(BigInt(unknown.offset) + 1n);
    const moved = await t.runtime.db.query("UPDATE projection_offsets SET next_offset = $1 WHERE projection = 'serves' AND topic = 'serves' AND partition = $2 AND next_offset = $3", [next, unknown.partition, unknown.offset]);
    expect(moved.rowCount).toBe(1);
    errors.length = 0;
    running = await startProjection(servesProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog, onError: (_name, error) => void errors.push(error.message) });
    await waitFor(async () => (await findServedInstances(t.runtime.db, [after.id])).length === 1, { what: 'the event after it to be applied', timeoutMs: 30_000 });
    expect(errors).toEqual([]);
  });

  it('a replay and an export stop at it, naming it', async () => {
    await expectReplayAndExportToStopAt(t, new RegExp(`serves/${unknown.partition} offset ${unknown.offset} cannot be decoded \\(schema id \\d+ is of type ${withdrawnType.replaceAll('.', '\\.')}, which this build has no schema in schemas/ for`));
  });
});
