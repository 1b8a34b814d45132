import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents, newEvent } from '../../commands/append.js';
import type { Subscription } from '../../platform/events/event-log.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { offerServed } from '../support/serves.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Before a partition's first batch is applied, the subscription reads the subscriber's own offsets
 * again (a partition handed over may start past them). When that read fails (the read models'
 * database is gone), the subscriber hears of it like any failed batch: a replay stops and says
 * so instead of waiting while kafkajs retries unheard.
 */
describe('a Kafka subscription whose start check fails', () => {
  let t: TestRuntime;
  let subscription: Subscription | undefined;

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
  });
  afterAll(async () => {
    await subscription?.stop();
    await t?.close();
  });

  it('reports the failure to the subscriber and applies nothing', async () => {
    const value = offerServed(t.runtime.config.linkBase, { application_id: 'app', offer_id: 'offer' });
    await appendEvents(t.runtime, 'serves', [newEvent(EventType.OfferServed, value.offer_instance_id, { ...value })]);
    const errors: Error[] = [];
    let reads = 0;
    let applied = 0;
    subscription = await t.runtime.eventLog.subscribe({
      group: 'start-check-failure',
      topics: ['serves'],
      ephemeral: true,
      // The first read seeds the group before it joins; every later one (the start checks) fails.
      resumeFrom: async () => {
        reads += 1;
        if (reads > 1) throw new Error('the offsets table cannot be read');
        return [];
      },
      onBatch: async (batch) => {
        applied += batch.events.length;
      },
      onError: (error) => void errors.push(error),
    });
    await waitFor(() => errors.some((error) => error.message === 'the offsets table cannot be read'), {
      what: 'the failed start check to reach the subscriber',
      timeoutMs: 30_000,
    });
    expect(applied).toBe(0);
  });
});
