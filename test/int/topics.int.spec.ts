import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, inject, it } from 'vitest';
import { openRuntime } from '../../platform/runtime.js';
import { TOPICS } from '../../schemas/topics.js';
import { createTestRuntime } from '../support/app.js';

const designed = Object.fromEntries(TOPICS.map((design) => [design.topic, design.partitions]));

describe('topics are created once, when a process opens the log', () => {
  it('on Kafka: every designed topic with its own partition count, and a second process finds them', async () => {
    const t = await createTestRuntime({ eventLog: 'kafka' });
    const admin = new Kafka({ brokers: inject('stack').kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: TOPICS.map((design) => `${t.topicPrefix}${design.topic}`) });
      const created = Object.fromEntries(topics.map((topic) => [topic.name.slice(t.topicPrefix.length), topic.partitions.length]));
      expect(created).toEqual(designed);
      // Another process of the same environment opens the log over the existing topics.
      const second = await openRuntime(t.config);
      await second.close();
      const names = (await admin.listTopics()).filter((name) => name.startsWith(t.topicPrefix));
      expect(names.sort()).toEqual(TOPICS.map((design) => `${t.topicPrefix}${design.topic}`).sort());
    } finally {
      await admin.disconnect();
      await t.close();
    }
  });

  it('on the embedded log: every designed topic with its one partition', async () => {
    const t = await createTestRuntime({ eventLog: 'sql' });
    try {
      const { rows } = await t.runtime.db.query<{ topic: string; partition: number }>(
        'SELECT topic, partition FROM event_log_partitions WHERE starts_with(topic, $1) ORDER BY topic',
        [t.topicPrefix],
      );
      expect(rows).toEqual(
        TOPICS.map((design) => ({ topic: `${t.topicPrefix}${design.topic}`, partition: 0 })).sort((a, b) => a.topic.localeCompare(b.topic)),
      );
    } finally {
      await t.close();
    }
  });
});
