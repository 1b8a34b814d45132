import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Subscription, TopicPartitionOffset } from '../../platform/events/event-log.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { catalogEvents } from '../support/catalog-events.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A projection's offsets live in Postgres; the Kafka group's committed offsets only say where its
 * consumer starts. On start-up the log resets a group that is ahead of the projection (it would
 * skip events), and leaves one a little behind as it is (a reset costs a group round; the runner
 * would skip what it re-reads; the log passes it over before decoding).
 */
describe('consumer group offsets against the projection offsets, on Kafka', () => {
  let t: TestRuntime;
  let admin: Admin;

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
    admin = new Kafka({ brokers: inject('stack').kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.disconnect();
    await t?.close();
  });

  /** Subscribes `group` resuming from `from`; records the first offset delivered per partition and every event delivered. */
  async function consume(group: string, from: TopicPartitionOffset[]) {
    const first = new Map<number, bigint>();
    let delivered = 0;
    const subscription: Subscription = await t.runtime.eventLog.subscribe({
      group,
      topics: ['catalog'],
      resumeFrom: async () => from,
      async onBatch(batch) {
        if (!first.has(batch.partition)) first.set(batch.partition, BigInt(batch.events[0]!.offset));
        delivered += batch.events.length;
      },
    });
    return { first, delivered: () => delivered, subscription };
  }

  const committed = async (group: string) => {
    const [topic] = await admin.fetchOffsets({ groupId: `${t.topicPrefix}${group}`, topics: [`${t.topicPrefix}catalog`] });
    return new Map(topic!.partitions.map((partition) => [partition.partition, BigInt(partition.offset)]));
  };

  const endOffsets = async () => new Map((await t.runtime.eventLog.endOffsets('catalog')).map((end) => [end.partition, BigInt(end.offset)]));

  const positions = (offsets: Map<number, bigint>, shift: (offset: bigint) => bigint): TopicPartitionOffset[] =>
    [...offsets].map(([partition, offset]) => ({ topic: 'catalog', partition, offset: shift(offset).toString() }));

  it('resets a group ahead of its projection: the events after the projection offsets come again', async () => {
    await t.runtime.eventLog.append('catalog', catalogEvents(400));
    const ends = await endOffsets();
    const total = [...ends.values()].reduce((sum, end) => sum + Number(end), 0);
    const first = await consume('ahead', []);
    await waitFor(() => first.delivered() >= total, { what: 'every event once' });
    await first.subscription.stop();
    expect(await committed('ahead')).toEqual(ends);

    // The read models were dropped (a replay from the start): the group must not start at its end.
    const again = await consume('ahead', positions(ends, () => 0n));
    try {
      await waitFor(() => again.delivered() >= total, { what: 'every event again' });
      expect(again.delivered()).toBe(total);
      for (const [partition, end] of ends) if (end > 0n) expect(again.first.get(partition)).toBe(0n);
    } finally {
      await again.subscription.stop();
    }
  });

  it('leaves a group a little behind its projection as it is: it re-reads from its own offsets, handing over only what the projection has not applied', async () => {
    const first = await consume('behind', []);
    const before = await endOffsets();
    const total = [...before.values()].reduce((sum, end) => sum + Number(end), 0);
    await waitFor(() => first.delivered() >= total, { what: 'every event once' });
    await first.subscription.stop();
    expect(await committed('behind')).toEqual(before);

    // More events, of which the projection applied ten per partition before the group committed.
    await t.runtime.eventLog.append('catalog', catalogEvents(400));
    const after = await endOffsets();
    const projected = new Map([...before].map(([partition, offset]) => [partition, offset + 10n < after.get(partition)! ? offset + 10n : after.get(partition)!]));
    const again = await consume('behind', positions(projected, (offset) => offset));
    try {
      // Not reset: the group still holds its own offsets, and its consumer starts there.
      expect(await committed('behind')).toEqual(before);
      // What it reads again below the projection's offsets is passed over, undecoded (README, "An
      // event that cannot be decoded"): the subscriber gets the events from the projection's offsets.
      const fresh = [...after].reduce((sum, [partition, end]) => sum + Number(end - projected.get(partition)!), 0);
      await waitFor(() => again.delivered() >= fresh, { what: 'every event after the projection offsets' });
      expect(again.delivered()).toBe(fresh);
      for (const [partition, end] of after) if (end > projected.get(partition)!) expect(again.first.get(partition)).toBe(projected.get(partition));
    } finally {
      await again.subscription.stop();
    }
    expect(await committed('behind')).toEqual(after);
  });
});
