import { randomBytes } from 'node:crypto';
import { ConfigResourceTypes, ConfigSource, Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventLog } from '../../platform/events/event-log.js';
import { kafkaEventLog } from '../../platform/events/kafka-event-log.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The log is the source of truth: its topics keep every event for good, whatever the broker's
 * defaults (7 days of retention.ms unless a cluster says otherwise), and take each event's time
 * as the broker appends it (a point in time is found through those times).
 */
describe('the settings of the log topics on Kafka', () => {
  const stack = inject('stack');
  const opened: EventLog[] = [];
  let admin: Admin;
  const open = async (prefix: string) => {
    const eventLog = await kafkaEventLog(registryCodec(stack.schemaRegistryUrl, loadSchemaCatalog()), { brokers: stack.kafkaBrokers, topicPrefix: prefix });
    opened.push(eventLog);
    return eventLog;
  };
  /** The topic's own settings (not inherited from the broker), by name. */
  const ownSettings = async (topic: string) => {
    const { resources } = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] });
    return Object.fromEntries(resources[0]!.configEntries.filter((entry) => entry.configSource === ConfigSource.TOPIC_CONFIG).map((entry) => [entry.configName, entry.configValue]));
  };
  const setting = async (topic: string, name: string) => {
    const { resources } = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: [name] }] });
    return resources[0]!.configEntries[0]!.configValue;
  };

  beforeAll(async () => {
    admin = new Kafka({ brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });
  afterAll(async () => {
    for (const eventLog of opened) await eventLog.close();
    await admin?.disconnect();
  });

  it('creates its topics keeping every event (no time or size limit, never compacted, no unclean leader election) with the log time, set on each topic', async () => {
    const prefix = `retention-${randomBytes(4).toString('hex')}.`;
    const eventLog = await open(prefix);
    expect(await eventLog.ensureTopics([{ topic: 'postbacks', partitions: 2 }])).toEqual([]);
    expect(await ownSettings(`${prefix}postbacks`)).toMatchObject({ 'retention.ms': '-1', 'retention.bytes': '-1', 'cleanup.policy': 'delete', 'message.timestamp.type': 'LogAppendTime', 'unclean.leader.election.enable': 'false' });
  });

  it("gives an existing topic that inherits the broker's 7 days (as an earlier build created them) every event for good, keeping its other settings, and says so", async () => {
    const prefix = `retention-${randomBytes(4).toString('hex')}.`;
    const topic = `${prefix}postbacks`;
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'min.insync.replicas', value: '1' }, { name: 'max.message.bytes', value: '2000000' }] }] });
    expect(await setting(topic, 'retention.ms')).toBe('604800000');
    const eventLog = await open(prefix);
    const notes = await eventLog.ensureTopics([{ topic: 'postbacks', partitions: 1 }]);
    expect(notes).toEqual([
      `topic ${topic} deletes events older than 604800000 ms (retention.ms), takes each event's time from the clock of the process that appended it (message.timestamp.type CreateTime), inherited from the broker: now retention.ms=-1 message.timestamp.type=LogAppendTime`,
    ]);
    // The controller takes the change, and each broker applies it as its metadata catches up.
    await waitFor(async () => (await ownSettings(topic))['retention.ms'] === '-1', { timeoutMs: 10_000, what: 'the broker to show the settings given to the topic' });
    expect(await ownSettings(topic)).toEqual({ 'min.insync.replicas': '1', 'max.message.bytes': '2000000', 'retention.ms': '-1', 'message.timestamp.type': 'LogAppendTime' });
    // Once kept for good, a later start has nothing to change or say.
    expect(await eventLog.ensureTopics([{ topic: 'postbacks', partitions: 1 }])).toEqual([]);
  });

  it("leaves a retention an operator set on the topic itself, and names the setting to change", async () => {
    const prefix = `retention-${randomBytes(4).toString('hex')}.`;
    const topic = `${prefix}postbacks`;
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '86400000' }, { name: 'retention.bytes', value: '-1' }, { name: 'cleanup.policy', value: 'delete' }, { name: 'message.timestamp.type', value: 'LogAppendTime' }] }] });
    const eventLog = await open(prefix);
    const notes = await eventLog.ensureTopics([{ topic: 'postbacks', partitions: 1 }]);
    expect(notes).toEqual([
      `topic ${topic} deletes events older than 86400000 ms (retention.ms), set on the topic: left as it is, but the log needs retention.ms=-1; set it on the topic`,
    ]);
    expect(await setting(topic, 'retention.ms')).toBe('86400000');
  });
});
