import type { Admin, Consumer, EachBatchHandler, Kafka } from 'kafkajs';
import type { EventCodec } from './codec.js';
import { keepConsumerRunning, type ConsumerKeeper } from './consumer-keeper.js';
import type { SubscribeOptions, Subscription, TopicPartitionOffset } from './event-log.js';
import { heartbeatWhile } from './heartbeat-while.js';
import { decodeMessagesUntilFailure } from './kafka-messages.js';
import { isUnpropagatedTopic, retryRetriable, TopicNotPropagatedError } from './kafka-retry.js';
import { BackendUnavailableError, describeFailure } from '../startup.js';

/**
 * Batches of different partitions of one projection handed over at once: as many as the busiest
 * topics have partitions, so the runner can take a whole fetch in one transaction where the
 * projection allows it (runner.ts, acrossPartitions), or apply each in its own side by side.
 */
const CONCURRENT_PARTITIONS = 6;
/** How often a consumer group's offsets are committed (they only speed up a restart; see subscribe). */
const GROUP_COMMIT_INTERVAL_MS = 1_000;
/** A consumer's session: the broker's least (group.min.session.timeout.ms, 6 s by default). */
const SESSION_TIMEOUT_MS = 6_000;
const HEARTBEAT_MS = 1_000;
/**
 * Events a partition's group offset may trail its projection's before the group is reset on
 * start-up: re-reading them (each skipped or inserted as nothing new) costs less than a reset.
 */
const REREAD_RATHER_THAN_RESET = 5_000n;
/** How long a consumer kafkajs will not restart waits before a new one joins its group. */
const CONSUMER_REPLACE_MS = 1_000;

/**
 * A subscriber has applied events past the end of a topic's partition: its offsets come from
 * another log (topics deleted and created again, another cluster or TOPIC_PREFIX, a database
 * restored beside a log that lost events). Reading on would skip the log's events up to those
 * offsets without a word, and its readers would take writes for applied that are not.
 */
export class OffsetsPastLogEndError extends Error {
  constructor(group: string, topic: string, partitions: { partition: number; offset: string; high: string }[]) {
    const where = partitions.map(({ partition, offset, high }) => `${topic}/${partition} at offset ${offset}, the log ends at ${high}`).join('; ');
    super(
      `${group} has applied past the end of the log (${where}): its read models were built from another log (topics created again, another KAFKA_BROKERS or TOPIC_PREFIX); point it at that log, or build them from this one in a new database (README, "Offsets past the log's end")`,
    );
    this.name = 'OffsetsPastLogEndError';
  }
}

/** What a subscription shares with its event log: the client, the codec, topic names, and the running consumers (stopped on close). */
export interface SubscriptionContext {
  kafka: Kafka;
  admin: Admin;
  codec: EventCodec;
  topicPrefix: string;
  physical: (topic: string) => string;
  keepers: Set<ConsumerKeeper<Consumer>>;
}

/**
 * Points the group at the projection's own offsets (or the start) before it joins. Resetting
 * them costs a group round of several seconds (kafkajs joins a consumer to do it, which also
 * waits out a crashed member's session), so a group at most REREAD_RATHER_THAN_RESET events
 * behind on each partition is left as it is; one ahead (read models dropped for a replay), or
 * far behind, is reset. Answers those offsets, by logical topic and partition: what is below
 * them was applied before this start.
 */
async function seedGroupOffsets(context: SubscriptionContext, groupId: string, subscription: SubscribeOptions): Promise<Map<string, bigint>> {
  const { admin, physical } = context;
  const stored = new Map((await subscription.resumeFrom()).map((o) => [`${o.topic}:${o.partition}`, o.offset]));
  for (const topic of subscription.topics) {
    const [watermarks, committed] = await retryRetriable(
      async () => {
        const [marks, [offsets]] = await Promise.all([admin.fetchTopicOffsets(physical(topic)), admin.fetchOffsets({ groupId, topics: [physical(topic)] })]);
        // Both answers cover every partition, or the topic is too new for the broker asked.
        if (marks.length === 0 || offsets === undefined || offsets.partitions.length !== marks.length) throw new TopicNotPropagatedError(physical(topic));
        return [marks, offsets] as const;
      },
      12,
      isUnpropagatedTopic,
    );
    const committedByPartition = new Map(committed.partitions.map((p) => [p.partition, p.offset]));
    const partitions = watermarks.map((mark) => ({
      partition: mark.partition,
      offset: stored.get(`${topic}:${mark.partition}`) ?? mark.low,
      low: mark.low,
      high: mark.high,
    }));
    // The stored offsets were read before the log's ends, which only grow: one past its end was
    // applied from another log. kafkajs would answer OFFSET_OUT_OF_RANGE by starting at the
    // log's start, and the runner would skip every event below the stored offset, unsaid.
    const pastEnd = partitions.filter(({ offset, high }) => BigInt(offset) > BigInt(high));
    if (pastEnd.length > 0) throw new OffsetsPastLogEndError(subscription.group, topic, pastEnd);
    const agrees = partitions.every(({ partition, offset, low }) => {
      // Without a committed offset (or below the log's start) the group starts at the log's start.
      const committed = BigInt(committedByPartition.get(partition) ?? '-1');
      const start = committed < BigInt(low) ? BigInt(low) : committed;
      // A group a little behind re-reads what the projection applied since the group's last
      // commit (at most about a second: commits are on a timer) and the runner skips it again;
      // a group ahead would skip events, so it is always reset.
      const behind = BigInt(offset) - start;
      return behind >= 0n && behind <= REREAD_RATHER_THAN_RESET;
    });
    if (agrees) continue;
    try {
      await retryRetriable(() =>
        admin.setOffsets({ groupId, topic: physical(topic), partitions: partitions.map(({ partition, offset }) => ({ partition, offset })) }),
      );
    } catch {
      // The group already has running members (another instance); the runner skips anything
      // it already applied, so starting from the group's committed offsets is safe.
    }
  }
  return new Map([...stored].map(([at, offset]) => [at, BigInt(offset)]));
}

/**
 * The broker's refusal of the group as a backend that is unavailable, with what to check: a
 * broker that denies this client the group (an ACL) answers only that it found no coordinator
 * for it, and kafkajs' error names neither the group nor the setting. Errors of our own pass.
 */
export function groupUnavailable(error: unknown, groupId: string): unknown {
  if (!(error instanceof Error) || !error.name.startsWith('KafkaJS')) return error;
  return new BackendUnavailableError(
    'KAFKA_BROKERS',
    `consumer group "${groupId}": ${describeFailure(error)}`,
    'check that Kafka runs there and lets this client use the consumer groups and topics whose names start with TOPIC_PREFIX',
  );
}

/**
 * A projection's subscription: a consumer group of its own whose start is the projection's own
 * offsets (seedGroupOffsets), batches applied as the subscriber says, offsets committed on a timer.
 */
export async function kafkaSubscribe(context: SubscriptionContext, subscription: SubscribeOptions): Promise<Subscription> {
  const { kafka, admin, codec, physical, keepers } = context;
  const groupId = `${context.topicPrefix}${subscription.group}`;
  const appliedBefore = await seedGroupOffsets(context, groupId, subscription).catch((error: unknown) => {
    throw groupUnavailable(error, groupId);
  });
  const logical = new Map(subscription.topics.map((topic) => [physical(topic), topic]));
  // The group's committed offsets are only a hint (the projection's table is the truth), so they
  // are committed on a timer, not after every batch: kafkajs commits after each batch and waits
  // for it whenever autoCommit is on, which puts a round trip into every reader's wait for its
  // own write.
  const applied = new Map<string, { topic: string; partition: number; offset: string }>();
  let commitInFlight: Promise<void> | undefined;
  const commitApplied = () => {
    if (commitInFlight || applied.size === 0) return commitInFlight;
    const offsets = [...applied.values()];
    applied.clear();
    commitInFlight = keeper
      .current()
      .commitOffsets(offsets)
      .catch(() => {
        // A rebalance or a broker restart: the next commit carries newer offsets anyway.
      })
      .finally(() => {
        commitInFlight = undefined;
      });
    return commitInFlight;
  };
  /** The consumer running now (the keeper replaces a crashed one); set before its first batch. */
  let active: Consumer | undefined;
  /** Partitions held at their `until` bound, by physical topic. */
  const held = new Map<string, Set<number>>();
  const hold = (topic: string, partition: number) => {
    active?.pause([{ topic, partitions: [partition] }]);
    held.set(topic, (held.get(topic) ?? new Set()).add(partition));
  };
  const resume = () => {
    const partitions = [...held].map(([topic, set]) => ({ topic, partitions: [...set] }));
    held.clear();
    if (partitions.length > 0) active?.resume(partitions);
  };
  /** Partitions whose start since the last assignment was checked against the subscriber's own offsets. */
  const startChecked = new Set<string>();
  /**
   * Where a partition handed over mid-run must start instead of `first`, or undefined to go on.
   * A consumer given a partition by a rebalance starts at the group's committed offset, which
   * only says where the group's members got to: a member that applied into another database (a
   * copy of this one keeps its id, so its groups) may have committed past what this subscriber
   * applied, and starting there would skip those events for good. The subscriber's own offsets
   * are the truth: a start beyond them goes back to them (unless retention has dropped them).
   */
  const startBehind = async (own: TopicPartitionOffset[], topic: string, partition: number, first: bigint): Promise<bigint | undefined> => {
    const from = BigInt(own.find((offset) => offset.topic === topic && offset.partition === partition)?.offset ?? '0');
    if (first <= from) return undefined;
    const marks = await admin.fetchTopicOffsets(physical(topic));
    const low = BigInt(marks.find((mark) => mark.partition === partition)?.low ?? '0');
    return from >= low ? from : undefined;
  };
  const warnHandedOver = (topic: string, partition: number, at: bigint, back: bigint) =>
    kafka.logger().warn(`${groupId}: ${topic}/${partition} was handed over at offset ${at}, past the ${back} this subscriber applied (another member's commit); reading again from ${back}`, {});
  /** Partitions just assigned whose group commit lies past this subscriber's own offsets go back to them. */
  const seekAssignedBehind = async (consumer: Consumer, assignment: Record<string, number[]>) => {
    const own = await subscription.resumeFrom();
    for (const [physicalTopic, partitions] of Object.entries(assignment)) {
      const topic = logical.get(physicalTopic);
      if (topic === undefined || partitions.length === 0) continue;
      const [committed] = await admin.fetchOffsets({ groupId, topics: [physicalTopic] });
      for (const partition of partitions) {
        const at = BigInt(committed?.partitions.find((entry) => entry.partition === partition)?.offset ?? '-1');
        if (at < 0n) continue;
        const back = await startBehind(own, topic, partition, at);
        if (back === undefined) continue;
        warnHandedOver(topic, partition, at, back);
        consumer.seek({ topic: physicalTopic, partition, offset: back.toString() });
      }
    }
  };
  const eachBatch: EachBatchHandler = async ({ batch, resolveOffset, heartbeat, isRunning }) => {
    if (!isRunning() || batch.messages.length === 0) return;
    const topic = logical.get(batch.topic)!;
    const started = `${batch.topic}:${batch.partition}`;
    if (!startChecked.has(started)) {
      let back: bigint | undefined;
      try {
        back = await startBehind(await subscription.resumeFrom(), topic, batch.partition, BigInt(batch.messages[0]!.offset));
      } catch (error) {
        // The subscriber's offsets could not be read (its database is gone): it hears of it as of a failed batch.
        subscription.onError?.(error as Error);
        throw error;
      }
      if (back !== undefined) {
        warnHandedOver(topic, batch.partition, BigInt(batch.messages[0]!.offset), back);
        active?.seek({ topic: batch.topic, partition: batch.partition, offset: back.toString() });
        return;
      }
      startChecked.add(started);
    }
    const below = subscription.until?.(topic, batch.partition);
    const messages = below === undefined ? batch.messages : batch.messages.filter((message) => BigInt(message.offset) < below);
    if (messages.length < batch.messages.length) {
      // Not resolved, so fetched again from here once resumed; a bound raised meanwhile resumes at once.
      hold(batch.topic, batch.partition);
      const raised = subscription.until?.(topic, batch.partition);
      if (raised !== undefined && raised > BigInt(batch.messages[messages.length]!.offset)) resume();
    }
    if (messages.length === 0) return;
    // What a group a little behind reads again was applied before this start: it is passed over
    // undecoded (the runner would skip it anyway), so an event that can no longer be decoded,
    // once an operator has moved the projection past it, does not stop the partition again.
    const floor = appliedBefore.get(`${topic}:${batch.partition}`);
    // Offsets ascend: once the first is at the floor (every batch after the first few), all are.
    const unapplied = floor === undefined || BigInt(messages[0]!.offset) >= floor ? messages : messages.filter((message) => BigInt(message.offset) >= floor);
    if (unapplied.length > 0) {
      try {
        // An event that cannot be decoded fails its batch like one that cannot be applied: the
        // subscriber hears of it (a replay stops and says so) instead of kafkajs retrying unheard.
        // The events before one that cannot be decoded are applied first: the partition stops exactly at it.
        const { events, undecodable } = await decodeMessagesUntilFailure(codec, topic, batch.partition, unapplied);
        if (events.length > 0) await heartbeatWhile(heartbeat, HEARTBEAT_MS, () => subscription.onBatch({ topic, partition: batch.partition, events }));
        if (undecodable) throw undecodable;
      } catch (error) {
        subscription.onError?.(error as Error);
        throw error;
      }
    }
    const last = messages[messages.length - 1]!.offset;
    resolveOffset(last);
    applied.set(`${batch.topic}:${batch.partition}`, { topic: batch.topic, partition: batch.partition, offset: (BigInt(last) + 1n).toString() });
    await heartbeat();
  };
  const keeper: ConsumerKeeper<Consumer> = await keepConsumerRunning({
    // A killed member holds its partitions until its session times out: the broker's least
    // (not kafkajs' 30 s) bounds how long a crashed projector stalls its read models; a batch
    // heartbeats while it is applied, however long that takes.
    build: () =>
      kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 250, sessionTimeout: SESSION_TIMEOUT_MS, heartbeatInterval: HEARTBEAT_MS }),
    async run(consumer) {
      active = consumer;
      // A replacement starts from the group's offsets: partitions held by the old one are not held.
      held.clear();
      startChecked.clear();
      // Every rebalance may hand over partitions: their starts are checked again, at once for
      // the group's commits (a partition committed at the log's end sends no batch to check).
      consumer.on(consumer.events.GROUP_JOIN, (joined) => {
        startChecked.clear();
        void seekAssignedBehind(consumer, joined.payload.memberAssignment).catch(() => {
          // The first batch of each partition is checked all the same.
        });
      });
      await consumer.connect();
      await consumer.subscribe({ topics: subscription.topics.map(physical), fromBeginning: true });
      // Partitions are independent (each key's events stay in one): their batches apply side by side.
      await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: CONCURRENT_PARTITIONS, eachBatch });
    },
    retryMs: CONSUMER_REPLACE_MS,
    onReplace: (error) => subscription.onError?.(new Error(`the ${groupId} consumer stopped for good; a new one joins the group`, { cause: error })),
  });
  const commitTimer = setInterval(() => void commitApplied(), GROUP_COMMIT_INTERVAL_MS);
  commitTimer.unref();
  keepers.add(keeper);
  return {
    resume,
    async stop() {
      keepers.delete(keeper);
      clearInterval(commitTimer);
      await commitApplied();
      await keeper.halt();
      // Best effort: an empty group left behind expires with the broker's offset retention anyway.
      if (subscription.ephemeral) await admin.deleteGroups([groupId]).catch(() => {});
    },
  };
}
