import kafkajs, { type Admin, type PartitionMetadata } from 'kafkajs';
import { retryRetriable } from './kafka-retry.js';
import type { TopicSetting } from './log-topic-settings.js';

const { ConfigResourceTypes, ConfigSource } = kafkajs;

const MIN_INSYNC = 'min.insync.replicas';

const isUnknownTopic = (error: unknown) => (error as { type?: string }).type === 'UNKNOWN_TOPIC_OR_PARTITION';

/**
 * Which of `names` exist: from the cluster's list of topics, or, when the list cannot be had
 * (any topic of the cluster with a partition without a leader fails it, another environment's as
 * well), by asking about each of those topics alone. (Asking about a missing topic makes kafkajs
 * log an error line, so the list comes first.)
 */
export async function existingTopics(admin: Admin, names: readonly string[]): Promise<Set<string>> {
  try {
    const listed = new Set(await admin.listTopics());
    return new Set(names.filter((name) => listed.has(name)));
  } catch {
    return await eachTopicExisting(admin, names);
  }
}

async function eachTopicExisting(admin: Admin, names: readonly string[]): Promise<Set<string>> {
  const exists = async (name: string) =>
    retryRetriable(async () => {
      try {
        await admin.fetchTopicMetadata({ topics: [name] });
        return true;
      } catch (error) {
        if (isUnknownTopic(error)) return false;
        throw error;
      }
    });
  const found = await Promise.all(names.map(async (name) => [name, await exists(name)] as const));
  return new Set(found.filter(([, there]) => there).map(([name]) => name));
}

/** Each topic's min.insync.replicas (the copies an acks=all append needs), as the brokers have it now. */
export const minInsyncReplicasOf = (admin: Admin, names: readonly string[]) => numberSettingOf(admin, names, MIN_INSYNC);

/**
 * Why appends to these topics would be refused now, or undefined when every partition has a
 * leader and as many copies in sync as its topic's min.insync.replicas: a broker that answers
 * is not enough, as acks=all appends fail (NOT_ENOUGH_REPLICAS) with too few copies in sync.
 */
export function appendsRefusedBecause(topics: { name: string; partitions: PartitionMetadata[] }[], minInsync: Map<string, number>): string | undefined {
  const problems = topics.flatMap(({ name, partitions }) =>
    partitions.flatMap((partition) => {
      // The broker asks for no more copies than the partition keeps (a min.insync.replicas above that is taken as all of them).
      const needed = Math.min(minInsync.get(name) ?? 1, partition.replicas.length);
      if (partition.leader < 0) return [`topic ${name} partition ${partition.partitionId} has no leader`];
      if (partition.isr.length < needed) {
        return [`topic ${name} partition ${partition.partitionId} has ${partition.isr.length} of ${partition.replicas.length} copies in sync, fewer than the ${needed} an append needs (${MIN_INSYNC})`];
      }
      return [];
    }),
  );
  if (problems.length === 0) return undefined;
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more partitions)` : '';
  return `appends would be refused: ${problems.slice(0, 3).join('; ')}${more}`;
}

/** Every setting of each topic, as the brokers have it now, with where it comes from. */
export async function topicSettingsOf(admin: Admin, names: readonly string[]): Promise<Map<string, TopicSetting[]>> {
  const { resources } = await retryRetriable(() =>
    admin.describeConfigs({ resources: names.map((name) => ({ type: ConfigResourceTypes.TOPIC, name })), includeSynonyms: false }),
  );
  return new Map(
    resources.map((resource) => [
      resource.resourceName,
      resource.configEntries.map((entry) => ({
        name: entry.configName,
        value: entry.configValue,
        ownSetting: entry.configSource === ConfigSource.TOPIC_CONFIG,
        sensitive: entry.isSensitive,
      })),
    ]),
  );
}

/** Replaces a topic's own settings with `settings` (the broker takes them as a whole). */
export async function putTopicSettings(admin: Admin, name: string, settings: Record<string, string>): Promise<void> {
  await retryRetriable(() =>
    admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name, configEntries: Object.entries(settings).map(([setting, value]) => ({ name: setting, value })) }],
    }),
  );
}

/** Each topic's max.message.bytes as the brokers have it now (its own, or the broker's message.max.bytes it inherits). */
export const maxMessageBytesOf = (admin: Admin, names: readonly string[]) => numberSettingOf(admin, names, 'max.message.bytes');

/** One numeric setting of each topic, as the brokers have it now (its own or inherited); topics without a usable value are absent. */
async function numberSettingOf(admin: Admin, names: readonly string[], setting: string): Promise<Map<string, number>> {
  const { resources } = await retryRetriable(() =>
    admin.describeConfigs({ resources: names.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: [setting] })), includeSynonyms: false }),
  );
  const values = new Map<string, number>();
  for (const resource of resources) {
    const value = Number(resource.configEntries.find((entry) => entry.configName === setting)?.configValue);
    if (Number.isSafeInteger(value) && value > 0) values.set(resource.resourceName, value);
  }
  return values;
}
