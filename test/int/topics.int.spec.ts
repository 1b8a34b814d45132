import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, inject, it } from 'vitest';
import { openRuntime } from '../../platform/runtime.js';
import { TOPICS } from '../../schemas/topics.js';
import { startProjectors } from '../../services/projector/projectors.js';
import { createTestApp, createTestRuntime } from '../support/app.js';
import { postbackWorld, postPostback } from '../support/postback-world.js';

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

  it('then never again: admin commands, a Query, a click and a postback append without ensuring a topic', async () => {
    const t = await createTestApp({ eventLog: 'kafka' });
    const projectors = await startProjectors(t.runtime);
    let ensured = 0;
    const ensureTopics = t.runtime.eventLog.ensureTopics.bind(t.runtime.eventLog);
    t.runtime.eventLog.ensureTopics = (designs) => {
      ensured += 1;
      return ensureTopics(designs);
    };
    try {
      const world = await postbackWorld(t.runtime);
      const { key } = await world.admin.key(world.application);
      const placement = await world.admin.placement(world.application);
      const query = await t.app.inject({
        method: 'POST', url: '/v1/offers/query',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ placement_id: placement, limit: 1 }),
      });
      expect(query.statusCode, query.body).toBe(200);
      const card = await world.serve(world.cpaOffer);
      await world.click(card);
      const posted = await postPostback(t.app, world.partner, { event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: `topics-${card.offer_instance_id}` });
      expect(posted.json().data).toMatchObject({ result: 'accepted' });
      expect(ensured).toBe(0);
    } finally {
      await projectors.stop();
      await t.close();
    }
  });
});
