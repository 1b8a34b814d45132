import { randomBytes } from 'node:crypto';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { EventLog } from '../../platform/events/event-log.js';
import { kafkaEventLog } from '../../platform/events/kafka-event-log.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';

/**
 * Topics the service creates carry their replication themselves (topic-replication.ts), not the
 * broker's defaults: on the test stack's single broker that is one copy with min.insync.replicas
 * set on the topic, and a factor the cluster cannot hold is refused with the setting named.
 */
describe('the replication of created topics', () => {
  const stack = inject('stack');
  const opened: EventLog[] = [];
  const open = async (prefix: string, replication?: { replicationFactor: number; minInsyncReplicas: number }) => {
    const eventLog = await kafkaEventLog(registryCodec(stack.schemaRegistryUrl, loadSchemaCatalog()), {
      brokers: stack.kafkaBrokers,
      topicPrefix: prefix,
      ...(replication ? { replication } : {}),
    });
    opened.push(eventLog);
    return eventLog;
  };
  afterAll(async () => {
    for (const eventLog of opened) await eventLog.close();
  });

  it('sets min.insync.replicas on the topic and keeps as many copies as the cluster decides', async () => {
    const prefix = `replication-${randomBytes(4).toString('hex')}.`;
    const eventLog = await open(prefix);
    await eventLog.ensureTopics([{ topic: 'serves', partitions: 2 }]);
    const admin = new Kafka({ brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [`${prefix}serves`] });
      expect(topics[0]!.partitions.map((partition) => partition.replicas.length)).toEqual([1, 1]);
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: `${prefix}serves`, configNames: ['min.insync.replicas'] }],
      });
      const entry = resources[0]!.configEntries.find((config) => config.configName === 'min.insync.replicas')!;
      expect(entry).toMatchObject({ configValue: '1', isDefault: false });
    } finally {
      await admin.disconnect();
    }
  });

  it('refuses a replication factor larger than the cluster, naming KAFKA_REPLICATION_FACTOR', async () => {
    const eventLog = await open(`replication-${randomBytes(4).toString('hex')}.`, { replicationFactor: 2, minInsyncReplicas: 0 });
    await expect(eventLog.ensureTopics([{ topic: 'serves', partitions: 1 }])).rejects.toThrow('KAFKA_REPLICATION_FACTOR: is 2, but the cluster has 1 broker(s) up');
  });
});
