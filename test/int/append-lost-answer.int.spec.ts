import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newEvent } from '../../commands/append.js';
import type { EventLog } from '../../platform/events/event-log.js';
import { kafkaEventLog } from '../../platform/events/kafka-event-log.js';
import { createMetrics, type Metrics } from '../../platform/metrics/metrics.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { EventType } from '../../schemas/generated/events.js';
import { cuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { readTopic } from '../support/read-topic.js';
import { offerServed } from '../support/serves.js';

/**
 * An append whose produce request the broker wrote but whose answer was lost (the broker went
 * away): the append fails, and the next appends to the same partition are written, never taken
 * for a duplicate of the lost one (acknowledged, not written) nor refused as out of order. With
 * one idempotent producer kept across the failure, kafkajs reuses the lost request's sequence
 * numbers and the broker does exactly that; the event log starts a new producer after a failed send.
 */
describe('an append whose answer is lost', () => {
  let proxy: CuttingProxy;
  let eventLog: EventLog;
  let metrics: Metrics;

  beforeAll(async () => {
    const stack = inject('stack');
    const [host, port] = stack.kafkaBrokers[0]!.split(':');
    proxy = await cuttingProxy({ host: host!, port: Number(port) });
    metrics = createMetrics();
    eventLog = await kafkaEventLog(registryCodec(stack.schemaRegistryUrl, loadSchemaCatalog()), {
      brokers: stack.kafkaBrokers,
      topicPrefix: `lost-answer-${randomBytes(4).toString('hex')}.`,
      metrics,
      // Every connection, whatever broker address the metadata names, goes through the proxy.
      socketFactory: ({ onConnect }) => connect({ host: '127.0.0.1', port: proxy.port }, onConnect),
    });
    await eventLog.ensureTopics([{ topic: 'serves', partitions: 1 }]);
  });
  afterAll(async () => {
    await eventLog?.close();
    await proxy?.close();
  });

  /** Two serves under one key (one partition, one produce request of two records). */
  const twoServes = (key: string) =>
    [0, 1].map(() => {
      const served = offerServed('https://go.example', { offer_id: key, application_id: key });
      return newEvent(EventType.OfferServed, key, served);
    });
  const idsOf = (events: ReturnType<typeof twoServes>) => events.map((event) => event.value.offer_instance_id as string);

  it('fails, and the appends after it are written (the lost one stays in the log once)', async () => {
    const key = 'one-key';
    await eventLog.append('serves', twoServes(key));
    const lost = twoServes(key);
    const cut = proxy.cutNextAnswer();
    const failed = eventLog.append('serves', lost).then(
      () => 'acknowledged',
      () => 'failed',
    );
    await cut;
    expect(await failed).toBe('failed');
    expect((await metrics.appendProducersReplaced.get()).values[0]?.value).toBe(1);
    proxy.heal();

    const after = twoServes(key);
    await eventLog.append('serves', after);
    const more = twoServes(key);
    await eventLog.append('serves', more);

    // Everything the partition holds (an acknowledged append that was not written is missing here).
    const [end] = await eventLog.endOffsets('serves');
    const logged = await readTopic(eventLog, 'serves', (events) => events.length >= Number(end!.offset), 30_000);
    const loggedIds = logged.map((event) => (event.value as { offer_instance_id: string }).offer_instance_id);
    expect(loggedIds.slice(2)).toEqual([...idsOf(lost), ...idsOf(after), ...idsOf(more)]);
  }, 60_000);
});
