import { randomBytes } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newEvent } from '../../commands/append.js';
import type { EventLog } from '../../platform/events/event-log.js';
import { kafkaBoundedSource } from '../../platform/events/kafka-bounded-read.js';
import { kafkaEventLog } from '../../platform/events/kafka-event-log.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { EventType } from '../../schemas/generated/events.js';
import { offerServed } from '../support/serves.js';

/** The broker's least session (group.min.session.timeout.ms), so a batch can outlast it in seconds. */
const SESSION_MS = 6_000;
const EVENTS = 3_000;

/**
 * A bounded read (an export) whose batch takes longer than its consumer's session, as a file on
 * a slow disk or a stalled pipe makes it: kafkajs heartbeats only between batches, so the group
 * dropped the member and the read failed at its next heartbeat ("The coordinator is not aware of
 * this member"), its file half written. It heartbeats while a batch is handed over.
 */
describe('a bounded read whose batch outlasts the consumer session', () => {
  const codec = registryCodec(inject('stack').schemaRegistryUrl, loadSchemaCatalog());
  const topicPrefix = `slow-read-${randomBytes(4).toString('hex')}.`;
  const kafka = new Kafka({ brokers: inject('stack').kafkaBrokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  let eventLog: EventLog;

  beforeAll(async () => {
    await admin.connect();
    eventLog = await kafkaEventLog(codec, { brokers: inject('stack').kafkaBrokers, topicPrefix });
    await eventLog.ensureTopics([{ topic: 'serves', partitions: 2 }]);
    await eventLog.append('serves', Array.from({ length: EVENTS }, (_, n) => {
      const served = offerServed('https://go.example', { offer_id: `offer-${n % 7}`, application_id: 'app' });
      return newEvent(EventType.OfferServed, served.offer_instance_id, served);
    }));
  }, 60_000);

  afterAll(async () => {
    await eventLog?.close().catch(() => {});
    await admin.deleteTopics({ topics: [`${topicPrefix}serves`] }).catch(() => {});
    await admin.disconnect();
  });

  it('hands every event over once and finishes', async () => {
    const source = kafkaBoundedSource({ kafka, admin, codec, topicPrefix, sessionTimeoutMs: SESSION_MS }, 'serves');
    const spans = (await source.extents()).map(({ partition, low, high }) => ({ partition, from: low.toString(), to: high.toString() }));
    const seen = new Set<string>();
    let handed = 0;
    let stalled = false;
    await source.forEach(spans, async (batch) => {
      if (!stalled) {
        stalled = true;
        // The slow writer itself (not a synchronization): this batch outlasts the session by half.
        await wait(SESSION_MS * 1.5);
      }
      for (const event of batch.events) seen.add(`${event.partition}:${event.offset}`);
      handed += batch.events.length;
    });
    expect(stalled).toBe(true);
    expect(handed).toBe(EVENTS);
    expect(seen.size).toBe(EVENTS);
  }, 60_000);
});
