import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newEvent } from '../../commands/append.js';
import type { EventLog } from '../../platform/events/event-log.js';
import { kafkaEventLog } from '../../platform/events/kafka-event-log.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { BackendUnavailableError } from '../../platform/startup.js';
import { EventType } from '../../schemas/generated/events.js';
import { startPrivateKafka, type PrivateKafka } from '../support/private-kafka.js';
import { offerServed } from '../support/serves.js';

/**
 * A bounded read (an export) whose broker goes away in the middle: kafkajs restarts its consumer
 * after a few seconds of retries, and a restarted consumer starts at the topic's end, so the read
 * waited for good, even once the broker was back. It fails instead, naming KAFKA_BROKERS (exit 4).
 */
describe('a bounded read of a broker that goes away', () => {
  let kafka: PrivateKafka;
  let eventLog: EventLog;

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    eventLog = await kafkaEventLog(registryCodec(inject('stack').schemaRegistryUrl, loadSchemaCatalog()), {
      brokers: kafka.brokers,
      topicPrefix: `bounded-read-${randomBytes(4).toString('hex')}.`,
    });
    await eventLog.ensureTopics([{ topic: 'serves', partitions: 2 }]);
    // More than one fetch holds, so the read must go back to the broker after its first batch.
    for (let batch = 0; batch < 20; batch += 1) {
      await eventLog.append('serves', Array.from({ length: 1_000 }, (_, n) => {
        const served = offerServed('https://go.example', { offer_id: `offer-${n % 7}`, application_id: 'app' });
        return newEvent(EventType.OfferServed, served.offer_instance_id, served);
      }));
    }
  }, 180_000);

  afterAll(async () => {
    await eventLog?.close().catch(() => {});
    await kafka?.close();
  });

  it('fails as an unavailable KAFKA_BROKERS instead of waiting for good', async () => {
    const read = await eventLog.read('serves', {});
    let handed = 0;
    const outcome = read.forEach(async (batch) => {
      if (handed === 0) await kafka.stop({ signal: 'SIGKILL' });
      handed += batch.events.length;
    }).then(() => 'finished', (error: unknown) => error);
    const failure = await outcome;
    expect(failure).toBeInstanceOf(BackendUnavailableError);
    expect((failure as BackendUnavailableError).setting).toBe('KAFKA_BROKERS');
    expect(handed).toBeLessThan(20_000);
  }, 120_000);
});
