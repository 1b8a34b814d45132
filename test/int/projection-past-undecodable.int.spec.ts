import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents, newEvent } from '../../commands/append.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { findServedInstances } from '../../projections/serves/queries.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { offerServed } from '../support/serves.js';
import { expectReplayAndExportToStopAt } from '../support/undecodable.js';
import { waitFor } from '../support/wait-for.js';
import { inject } from 'vitest';

/**
 * An event the registry can no longer decode stops its partition (the projection fails and says
 * so, retrying). The README's way past it: stop the projector, move the projection's offset past
 * the event, start again. The group's committed offset may still be below it; what a starting
 * projector reads again below its own offsets is passed over without being decoded.
 */
describe('a projection moved past an event that cannot be decoded (Kafka)', () => {
  let t: TestRuntime;
  let running: RunningProjection | undefined;
  let poisoned: { partition: number; offset: bigint } | undefined;
  const errors: string[] = [];
  const start = async () => {
    running = await startProjection(servesProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog, onError: (_name, error) => void errors.push(error.message) });
  };

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
  });
  afterAll(async () => {
    await running?.stop();
    await t?.close();
  });

  const serve = async () => {
    const value = offerServed(t.runtime.config.linkBase, { application_id: 'app', offer_id: 'offer' });
    const [appended] = await appendEvents(t.runtime, 'serves', [newEvent(EventType.OfferServed, value.offer_instance_id, { ...value })]);
    return { id: value.offer_instance_id, partition: appended!.partition, offset: BigInt(appended!.offset) };
  };

  it('resumes after the operator moves the projection past it, though the group is behind it', async () => {
    const before = await serve();
    const kafka = new Kafka({ brokers: inject('stack').kafkaBrokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic: `${t.runtime.config.topicPrefix}serves`, messages: [{ partition: before.partition, key: 'lost-schema', value: 'not in the wire format' }] });
    } finally {
      await producer.disconnect();
    }
    // A later event of the same partition, behind the undecodable one.
    let after = await serve();
    while (after.partition !== before.partition) after = await serve();

    await start();
    const poison = before.offset + 1n;
    poisoned = { partition: before.partition, offset: poison };
    await waitFor(() => errors.some((message) => message.includes(`serves/${before.partition} offset ${poison} cannot be decoded`) && message.includes('wire format')), {
      what: 'the projection to fail on the undecodable event, naming it',
      timeoutMs: 60_000,
    });
    // What comes before it in the same fetch is applied: the partition stops exactly at it.
    await waitFor(async () => (await findServedInstances(t.runtime.db, [before.id])).length === 1, { what: 'the event before it to be applied' });
    expect(await findServedInstances(t.runtime.db, [after.id])).toHaveLength(0);
    await running!.stop();
    running = undefined;

    // The README's step: the projection's offset from the event's to the next.
    const moved = await t.runtime.db.query(
      "UPDATE projection_offsets SET next_offset = $1 WHERE projection = 'serves' AND topic = 'serves' AND partition = $2 AND next_offset = $3",
      [String(poison + 1n), before.partition, String(poison)],
    );
    expect(moved.rowCount).toBe(1);
    errors.length = 0;
    await start();
    await waitFor(async () => (await findServedInstances(t.runtime.db, [after.id])).length === 1, { what: 'the event after it to be applied', timeoutMs: 60_000 });
    expect(errors).toEqual([]);
  });

  it('a replay and an export stop at it, naming it', async () => {
    const named = new RegExp(`the event at serves/${poisoned!.partition} offset ${poisoned!.offset} cannot be decoded \\(message is not in the Confluent wire format`);
    await expectReplayAndExportToStopAt(t, named);
  });
});
