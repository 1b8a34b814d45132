import { randomBytes } from 'node:crypto';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';

/** The resolved stack really answers: each backend does one real round trip. */
describe('the real stack', () => {
  const stack = inject('stack');
  const unique = `stack_check_${Date.now()}_${randomBytes(4).toString('hex')}`;

  it('Kafka creates, lists and deletes a topic', async () => {
    const kafka = new Kafka({ clientId: 'stack-check', brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const topic = `${unique}.topic`;
      expect(await admin.createTopics({ topics: [{ topic, numPartitions: 2 }], waitForLeaders: true })).toBe(true);
      expect(await admin.listTopics()).toContain(topic);
      const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
      expect(metadata?.partitions).toHaveLength(2);

      await admin.deleteTopics({ topics: [topic] });
      await waitFor(async () => !(await admin.listTopics()).includes(topic), { what: `${topic} to be deleted` });
    } finally {
      await admin.disconnect();
    }
  });

  it('the registry registers and returns an Avro schema through the Confluent-compatible API', async () => {
    const registry = new SchemaRegistry({ host: stack.schemaRegistryUrl });
    const subject = `${unique}-value`;
    const schema = JSON.stringify({
      type: 'record',
      name: 'StackChecked',
      namespace: 'offerledger.test',
      fields: [{ name: 'id', type: 'string', doc: 'Any id.' }],
    });

    const { id } = await registry.register({ type: SchemaType.AVRO, schema }, { subject });
    expect(await registry.getLatestSchemaId(subject)).toBe(id);
    const found = (await registry.getSchema(id)) as { name?: string };
    expect(found.name).toBe('offerledger.test.StackChecked');
    // The wire format round trip a producer and a consumer do.
    const encoded = await registry.encode(id, { id: 'abc' });
    expect(await registry.decode(encoded)).toEqual({ id: 'abc' });
  });

  it('Redis answers PING', async () => {
    const redis = new Redis(stack.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });

  it('Postgres answers SELECT 1', async () => {
    const client = new pg.Client({ connectionString: stack.postgresAdminUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ one: number }>('SELECT 1 AS one');
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });
});
