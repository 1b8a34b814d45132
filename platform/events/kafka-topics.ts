import type { Admin } from 'kafkajs';
import type { Metrics } from '../metrics/metrics.js';
import type { TopicDesign } from './event-log.js';
import { retryRetriable } from './kafka-retry.js';
import { appendsRefusedBecause, existingTopics, maxMessageBytesOf, minInsyncReplicasOf, putTopicSettings, topicSettingsOf } from './kafka-topic-state.js';
import { LOG_TOPIC_SETTINGS, topicSettingsPlan } from './log-topic-settings.js';
import { partitionCountNote, partitionsUnlikeDesign } from './topic-partitions.js';
import { fewerCopiesThan, fewerInsyncThan, topicReplication } from './topic-replication.js';

/** The log's topics on the broker: the designed ones created, their partition counts, whether appends can go in. */
export interface KafkaTopics {
  /**
   * Creates the missing topics; answers warnings about existing ones that keep fewer copies than
   * new ones would, or have another partition count than designed (also reported to `metrics`).
   */
  ensureTopics(topics: readonly TopicDesign[]): Promise<string[]>;
  partitionCount(topic: string): Promise<number>;
  /**
   * The most bytes of key and value one event of the topic may have, or undefined while the
   * brokers have not said (the broker still refuses a larger one).
   */
  maxEventBytes(topic: string): number | undefined;
  /** Throws when an append to the topics this process ensured would be refused (no leader, too few copies in sync). */
  checkAppendable(): Promise<void>;
  /** Whether this process ensured any topic (a process that only reads has none to check). */
  readonly ensuredAny: boolean;
}

export function kafkaTopics(
  admin: Admin,
  physical: (topic: string) => string,
  replication: { replicationFactor: number; minInsyncReplicas: number },
  metrics?: Pick<Metrics, 'partitionsUnlikeDesign'>,
): KafkaTopics {
  const partitionCounts = new Map<string, Promise<number>>();

  function partitionCount(topic: string): Promise<number> {
    let count = partitionCounts.get(topic);
    if (!count) {
      count = retryRetriable(() => admin.fetchTopicMetadata({ topics: [physical(topic)] })).then(({ topics }) => topics[0]!.partitions.length);
      count.catch(() => partitionCounts.delete(topic));
      partitionCounts.set(topic, count);
    }
    return count;
  }

  /**
   * A record batch holding one event takes 61 bytes of header and at most 21 of the record's own
   * framing (varints, attributes, no headers) besides its key and value; the broker checks the
   * whole batch against max.message.bytes.
   */
  const BATCH_FRAMING_BYTES = 82;
  /** By physical topic: learnt when the topics are ensured, so no append waits for it. */
  const maxEventBytesByTopic = new Map<string, number>();
  let learning: Promise<void> | undefined;
  const learnLimits = (names: readonly string[]) =>
    maxMessageBytesOf(admin, names).then((limits) => {
      for (const [name, bytes] of limits) maxEventBytesByTopic.set(name, bytes - BATCH_FRAMING_BYTES);
    });
  function maxEventBytes(topic: string): number | undefined {
    const limit = maxEventBytesByTopic.get(physical(topic));
    if (limit === undefined && !learning) {
      // A topic this process did not ensure: learnt in the background for later appends.
      learning = learnLimits([physical(topic)])
        .catch(() => {})
        .finally(() => {
          learning = undefined;
        });
    }
    return limit;
  }

  /**
   * Existing topics that keep fewer copies, or take an append with fewer, than new ones would, and
   * those whose partition count is not their design's: they are left as they are, and said so.
   */
  async function unlikeNewTopics(designs: readonly TopicDesign[], names: string[], replicationFactor: number, minInsyncReplicas: number): Promise<string[]> {
    for (const { topic } of designs) metrics?.partitionsUnlikeDesign.set({ topic }, 0);
    if (names.length === 0) return [];
    const [{ topics }, settings] = await Promise.all([retryRetriable(() => admin.fetchTopicMetadata({ topics: names })), minInsyncReplicasOf(admin, names)]);
    const designByName = new Map(designs.map((design) => [physical(design.topic), design]));
    const unlike = partitionsUnlikeDesign(new Map([...designByName].map(([name, { partitions }]) => [name, partitions])), topics);
    for (const { name } of unlike) metrics?.partitionsUnlikeDesign.set({ topic: designByName.get(name)!.topic }, 1);
    return [...unlike.map(partitionCountNote), ...fewerCopiesThan(replicationFactor, topics), ...fewerInsyncThan(minInsyncReplicas, settings)];
  }

  /** The topics this process ensured (physical names): the ones readiness looks at. */
  let ownTopics: string[] = [];

  /** Existing topics given the log's settings where they inherit others from the broker (log-topic-settings.ts); a line each for what was changed or left. */
  async function giveLogSettings(names: string[]): Promise<string[]> {
    if (names.length === 0) return [];
    const notes: string[] = [];
    for (const [name, settings] of await topicSettingsOf(admin, names)) {
      const plan = topicSettingsPlan(name, settings);
      try {
        if (plan.settings) await putTopicSettings(admin, name, plan.settings);
        notes.push(...plan.notes);
      } catch (error) {
        // A cluster may refuse this client topic changes (ACLs, an alter policy): the log still
        // works, and the operator is told what to set, rather than the service not starting.
        const wanted = Object.entries(LOG_TOPIC_SETTINGS).map(([setting, value]) => `${setting}=${value}`).join(' ');
        notes.push(`topic ${name} could not be given the log's settings (${(error as Error).message}): set ${wanted} on it`);
      }
    }
    return notes;
  }

  async function createTopics(topics: readonly TopicDesign[]): Promise<string[]> {
    ownTopics = [...new Set([...ownTopics, ...topics.map(({ topic }) => physical(topic))])];
    const existing = await existingTopics(admin, topics.map(({ topic }) => physical(topic)));
    const missing = topics.filter(({ topic }) => !existing.has(physical(topic)));
    const { brokers } = await retryRetriable(() => admin.describeCluster());
    const { replicationFactor, minInsyncReplicas } = topicReplication(brokers.length, replication);
    const warnings = [...(await giveLogSettings([...existing])), ...(await unlikeNewTopics(topics, [...existing], replicationFactor, minInsyncReplicas))];
    if (missing.length === 0) return warnings;
    const names = missing.map(({ topic }) => physical(topic));
    for (let attempt = 1; ; attempt += 1) {
      try {
        await admin.createTopics({
          waitForLeaders: true,
          topics: missing.map(({ topic, partitions }) => ({
            topic: physical(topic),
            numPartitions: partitions,
            replicationFactor,
            configEntries: [{ name: 'min.insync.replicas', value: String(minInsyncReplicas) }, ...Object.entries(LOG_TOPIC_SETTINGS).map(([name, value]) => ({ name, value }))],
          })),
        });
        return warnings;
      } catch (error) {
        // Another process may have created them between our list and create.
        if (/already exists/i.test((error as Error).message)) return warnings;
        // A busy broker can create the topics and still answer the wait for leaders with "does
        // not host this topic-partition": when they exist, wait for their metadata instead.
        const now = await existingTopics(admin, names);
        if (names.every((name) => now.has(name))) {
          await retryRetriable(() => admin.fetchTopicMetadata({ topics: names }), 20);
          return warnings;
        }
        if (attempt >= 3) throw error;
      }
    }
  }

  async function ensureTopics(topics: readonly TopicDesign[]): Promise<string[]> {
    const warnings = await createTopics(topics);
    // Best effort: without it, appends go on and the broker refuses an event too large itself.
    await learnLimits(topics.map(({ topic }) => physical(topic))).catch(() => {});
    return warnings;
  }

  return {
    ensureTopics,
    partitionCount,
    maxEventBytes,
    async checkAppendable() {
      // Brokers that answer are not enough: an append needs every partition's leader and enough copies in sync.
      const [{ topics }, minInsync] = await Promise.all([admin.fetchTopicMetadata({ topics: ownTopics }), minInsyncReplicasOf(admin, ownTopics)]);
      const refused = appendsRefusedBecause(topics, minInsync);
      if (refused) throw new Error(refused);
    },
    get ensuredAny() {
      return ownTopics.length > 0;
    },
  };
}
