import { Kafka, Partitioners, type Admin, type Consumer, type EachBatchHandler, type ISocketFactory } from 'kafkajs';
import { kafkaClientLevel, kafkaClientLog } from './kafka-client-log.js';
import type { Metrics } from '../metrics/metrics.js';
import { appendBatcher, type PartitionedMessage } from './append-batcher.js';
import type { EventCodec } from './codec.js';
import { keepConsumerRunning, type ConsumerKeeper } from './consumer-keeper.js';
import { kafkaBoundedSource } from './kafka-bounded-read.js';
import { decodeMessagesUntilFailure } from './kafka-messages.js';
import { isUnpropagatedTopic, retryRetriable, TopicNotPropagatedError } from './kafka-retry.js';
import { heartbeatWhile } from './heartbeat-while.js';
import { fewerCopiesThan, fewerInsyncThan, topicReplication } from './topic-replication.js';
import { appendsRefusedBecause, existingTopics, minInsyncReplicasOf } from './kafka-topic-state.js';
import { restartingProducer } from './restarting-producer.js';
import { openBoundedRead } from './bounded-read.js';
import type {
  AppendOptions,
  AppendedEvent,
  EventLog,
  NewEvent,
  SubscribeOptions,
  Subscription,
  TopicDesign,
  TopicPartitionOffset,
} from './event-log.js';

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

export interface KafkaLogOptions {
  brokers: string[];
  topicPrefix: string;
  clientId?: string;
  metrics?: Metrics;
  /** How long an append waits for concurrent ones to share its produce request (KAFKA_APPEND_LINGER_MS). */
  appendLingerMs?: number;
  /** KAFKA_REPLICATION_FACTOR and KAFKA_MIN_INSYNC_REPLICAS for the topics ensureTopics creates (0: decided by the cluster's size; topic-replication.ts). */
  replication?: { replicationFactor: number; minInsyncReplicas: number };
  /** LOG_LEVEL: how much of the Kafka client's own lines the log gets (kafka-client-log.ts). */
  logLevel?: string;
  /** How the client opens its connections (kafkajs' own by default; tests route them through a proxy that fails on cue). */
  socketFactory?: ISocketFactory;
}

/**
 * The production event log. Appends go through one idempotent producer with acks=all (a new one
 * after a failed send: restarting-producer.ts); we pick each message's partition ourselves
 * (Kafka's own murmur2 key partitioner) so an append can report the offset of every event it
 * wrote. Concurrent appends share produce requests (see append-batcher.ts).
 */
/** About 3 s of backoff in all: a leader election fits in it, an unreachable broker does not. */
const APPEND_RETRY = { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 };

export async function kafkaEventLog(codec: EventCodec, options: KafkaLogOptions): Promise<EventLog> {
  const kafka = new Kafka({
    clientId: options.clientId ?? 'offer-ledger',
    brokers: options.brokers,
    // Its lines go to the service's log, at LOG_LEVEL and condensed (an unreachable broker is said
    // once per half minute, not many times a second).
    logLevel: kafkaClientLevel(options.logLevel ?? 'info'),
    logCreator: kafkaClientLog(options.logLevel ?? 'info'),
    // Connections and metadata retry within the same few seconds as appends: kafkajs nests the
    // client's retries inside the producer's, so 8 here made an unreachable broker a minute-long wait.
    retry: APPEND_RETRY,
    ...(options.socketFactory ? { socketFactory: options.socketFactory } : {}),
  });
  const physical = (topic: string) => `${options.topicPrefix}${topic}`;
  try {
    await codec.prepare(physical);
  } catch (error) {
    throw new Error(`registering the event schemas with the schema registry failed: ${(error as Error).message}`, { cause: error });
  }
  const admin: Admin = kafka.admin();
  await admin.connect();
  const producer = await restartingProducer(() =>
    kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      // An append that cannot reach the log fails within seconds: a retryable 503 for the caller.
      retry: APPEND_RETRY,
    }),
    () => options.metrics?.appendProducersReplaced.inc(),
  );
  const batcher = appendBatcher<PartitionedMessage>({
    lingerMs: options.appendLingerMs ?? 1,
    write: (topicMessages) => producer.sendBatch(topicMessages),
  });
  const partitionFor = Partitioners.DefaultPartitioner();
  const partitionCounts = new Map<string, Promise<number>>();
  const keepers = new Set<ConsumerKeeper<Consumer>>();

  function partitionCount(topic: string): Promise<number> {
    let count = partitionCounts.get(topic);
    if (!count) {
      count = retryRetriable(() => admin.fetchTopicMetadata({ topics: [physical(topic)] })).then(({ topics }) => topics[0]!.partitions.length);
      count.catch(() => partitionCounts.delete(topic));
      partitionCounts.set(topic, count);
    }
    return count;
  }

  /** Existing topics that keep fewer copies, or take an append with fewer, than new ones would: they are left as they are, and said so. */
  async function weakerTopics(names: string[], replicationFactor: number, minInsyncReplicas: number): Promise<string[]> {
    if (names.length === 0) return [];
    const [{ topics }, settings] = await Promise.all([retryRetriable(() => admin.fetchTopicMetadata({ topics: names })), minInsyncReplicasOf(admin, names)]);
    return [...fewerCopiesThan(replicationFactor, topics), ...fewerInsyncThan(minInsyncReplicas, settings)];
  }

  /** The topics this process ensured (physical names): the ones readiness looks at. */
  let ownTopics: string[] = [];

  async function ensureTopics(topics: readonly TopicDesign[]): Promise<string[]> {
    ownTopics = [...new Set([...ownTopics, ...topics.map(({ topic }) => physical(topic))])];
    const existing = await existingTopics(admin, topics.map(({ topic }) => physical(topic)));
    const missing = topics.filter(({ topic }) => !existing.has(physical(topic)));
    const { brokers } = await retryRetriable(() => admin.describeCluster());
    const { replicationFactor, minInsyncReplicas } = topicReplication(brokers.length, options.replication ?? { replicationFactor: 0, minInsyncReplicas: 0 });
    const warnings = await weakerTopics([...existing], replicationFactor, minInsyncReplicas);
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
            configEntries: [{ name: 'min.insync.replicas', value: String(minInsyncReplicas) }],
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

  async function append(topic: string, events: NewEvent[], appendOptions: AppendOptions = {}): Promise<AppendedEvent[]> {
    if (events.length === 0) return [];
    const count = await partitionCount(topic);
    const partitionMetadata = Array.from({ length: count }, (_, partitionId) => ({
      partitionId,
      leader: 0,
      replicas: [0],
      isr: [0],
      partitionErrorCode: 0,
    }));
    const messages = await Promise.all(
      events.map(async (event) => ({
        key: event.key,
        value: await codec.encode(physical(topic), event.type, event.value),
        partition: partitionFor({ topic: physical(topic), partitionMetadata, message: { key: event.key, value: null } }),
      })),
    );
    const written = await batcher.append(physical(topic), messages, appendOptions);
    for (const event of events) options.metrics?.eventsProduced.inc({ topic, type: event.type });
    return written.map(({ partition, offset }) => ({ topic, partition, offset }));
  }

  /**
   * Points the group at the projection's own offsets (or the start) before it joins. Resetting
   * them costs a group round of several seconds (kafkajs joins a consumer to do it, which also
   * waits out a crashed member's session), so a group at most REREAD_RATHER_THAN_RESET events
   * behind on each partition is left as it is; one ahead (read models dropped for a replay), or
   * far behind, is reset. Answers those offsets, by logical topic and partition: what is below
   * them was applied before this start.
   */
  async function seedGroupOffsets(groupId: string, subscription: SubscribeOptions): Promise<Map<string, bigint>> {
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
      }));
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

  async function subscribe(subscription: SubscribeOptions): Promise<Subscription> {
    const groupId = `${options.topicPrefix}${subscription.group}`;
    const appliedBefore = await seedGroupOffsets(groupId, subscription);
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
          kafka.logger().warn(`${groupId}: ${topic}/${partition} was handed over at the group's offset ${at}, past the ${back} this subscriber applied (another member's commit); reading from ${back}`, {});
          consumer.seek({ topic: physicalTopic, partition, offset: back.toString() });
        }
      }
    };
    const eachBatch: EachBatchHandler = async ({ batch, resolveOffset, heartbeat, isRunning }) => {
      if (!isRunning() || batch.messages.length === 0) return;
      const topic = logical.get(batch.topic)!;
      const started = `${batch.topic}:${batch.partition}`;
      if (!startChecked.has(started)) {
        const back = await startBehind(await subscription.resumeFrom(), topic, batch.partition, BigInt(batch.messages[0]!.offset));
        if (back !== undefined) {
          kafka.logger().warn(`${groupId}: ${topic}/${batch.partition} was handed over at offset ${batch.messages[0]!.offset}, past the ${back} this subscriber applied (another member's commit); reading again from ${back}`, {});
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

  return {
    kind: 'kafka',
    ensureTopics,
    append,
    subscribe,
    read: (topic, bounds) => openBoundedRead(topic, bounds, kafkaBoundedSource({ kafka, admin, codec, topicPrefix: options.topicPrefix }, topic)),
    async endOffsets(topic): Promise<TopicPartitionOffset[]> {
      const watermarks = await retryRetriable(() => admin.fetchTopicOffsets(physical(topic)), 12, isUnpropagatedTopic);
      return watermarks.map((mark) => ({ topic, partition: mark.partition, offset: mark.high }));
    },
    async offsetsAfter(topic, time): Promise<TopicPartitionOffset[]> {
      // Kafka answers the first offset at or after a timestamp (in whole milliseconds).
      const offsets = await retryRetriable(() => admin.fetchTopicOffsetsByTimestamp(physical(topic), Math.floor(time.getTime()) + 1));
      return offsets.map((mark) => ({ topic, partition: mark.partition, offset: mark.offset }));
    },
    async ping({ appends = true } = {}) {
      if (ownTopics.length === 0 || !appends) {
        await admin.describeCluster();
        return;
      }
      // Brokers that answer are not enough: an append needs every partition's leader and enough copies in sync.
      const [{ topics }, minInsync] = await Promise.all([admin.fetchTopicMetadata({ topics: ownTopics }), minInsyncReplicasOf(admin, ownTopics)]);
      const refused = appendsRefusedBecause(topics, minInsync);
      if (refused) throw new Error(refused);
    },
    async close() {
      await batcher.flush();
      await Promise.all([...keepers].map((keeper) => keeper.halt()));
      keepers.clear();
      await producer.disconnect();
      await admin.disconnect();
    },
  };
}
