import { Kafka, Partitioners, type Admin, type Consumer, type ISocketFactory } from 'kafkajs';
import { kafkaClientLevel, kafkaClientLog } from './kafka-client-log.js';
import type { Metrics } from '../metrics/metrics.js';
import { appendBatcher, type PartitionedMessage } from './append-batcher.js';
import type { EventCodec } from './codec.js';
import type { ConsumerKeeper } from './consumer-keeper.js';
import { kafkaBoundedSource } from './kafka-bounded-read.js';
import { offsetsAtOrAfter } from './kafka-offsets-by-time.js';
import { isUnpropagatedTopic, retryRetriable } from './kafka-retry.js';
import { kafkaSubscribe } from './kafka-subscription.js';
import { existingTopics } from './kafka-topic-state.js';
import { kafkaTopics } from './kafka-topics.js';
import { dropKafkajsNegativeTimeoutWarnings } from './kafkajs-timer-warning.js';
import { restartingProducer } from './restarting-producer.js';
import { openBoundedRead } from './bounded-read.js';
import { EventTooLargeError, type AppendOptions, type AppendedEvent, type EventLog, type NewEvent, type TopicPartitionOffset } from './event-log.js';
import { BackendUnavailableError } from '../startup.js';

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

/** About 3 s of backoff in all: a leader election fits in it, an unreachable broker does not. */
const APPEND_RETRY = { retries: 5, initialRetryTime: 100, maxRetryTime: 1_000 };

/**
 * The production event log. Appends go through one idempotent producer with acks=all (a new one
 * after a failed send: restarting-producer.ts); we pick each message's partition ourselves
 * (Kafka's own murmur2 key partitioner) so an append can report the offset of every event it
 * wrote. Concurrent appends share produce requests (see append-batcher.ts). Topics are
 * kafka-topics.ts's, subscriptions kafka-subscription.ts's.
 */

export async function kafkaEventLog(codec: EventCodec, options: KafkaLogOptions): Promise<EventLog> {
  dropKafkajsNegativeTimeoutWarnings();
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
    // The registry refusing a schema says what to do itself; anything else is a registry to check.
    if (error instanceof BackendUnavailableError) throw error;
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
    write: (topicMessages) => {
      options.metrics?.eventLogWrites.inc();
      return producer.sendBatch(topicMessages);
    },
  });
  const partitionFor = Partitioners.DefaultPartitioner();
  const keepers = new Set<ConsumerKeeper<Consumer>>();
  const topics = kafkaTopics(admin, physical, options.replication ?? { replicationFactor: 0, minInsyncReplicas: 0 }, options.metrics);

  async function append(topic: string, events: NewEvent[], appendOptions: AppendOptions = {}): Promise<AppendedEvent[]> {
    if (events.length === 0) return [];
    const count = await topics.partitionCount(topic);
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
    const maxEventBytes = topics.maxEventBytes(topic);
    // The broker refuses a record batch larger than the topic's max.message.bytes with an error
    // that names neither the event nor the limit (and the producer is replaced, as after any
    // failed send). Refused here, nothing of the append is sent.
    if (maxEventBytes !== undefined) {
      messages.forEach((message, index) => {
        const bytes = message.value.length + Buffer.byteLength(message.key);
        if (bytes > maxEventBytes) throw new EventTooLargeError(topic, events[index]!.type, bytes, maxEventBytes);
      });
    }
    const written = await batcher.append(physical(topic), messages, appendOptions);
    for (const event of events) options.metrics?.eventsProduced.inc({ topic, type: event.type });
    return written.map(({ partition, offset }) => ({ topic, partition, offset }));
  }

  return {
    kind: 'kafka',
    ensureTopics: (designs) => topics.ensureTopics(designs),
    async missingTopics(names) {
      const existing = await existingTopics(admin, names.map(physical));
      return names.filter((name) => !existing.has(physical(name)));
    },
    append,
    subscribe: (subscription) => kafkaSubscribe({ kafka, admin, codec, topicPrefix: options.topicPrefix, physical, keepers }, subscription),
    read: (topic, bounds) => openBoundedRead(topic, bounds, kafkaBoundedSource({ kafka, admin, codec, topicPrefix: options.topicPrefix }, topic)),
    async endOffsets(topic): Promise<TopicPartitionOffset[]> {
      const watermarks = await retryRetriable(() => admin.fetchTopicOffsets(physical(topic)), 12, isUnpropagatedTopic);
      return watermarks.map((mark) => ({ topic, partition: mark.partition, offset: mark.high }));
    },
    async offsetsAfter(topic, time): Promise<TopicPartitionOffset[]> {
      // Kafka answers the first offset at or after a timestamp (in whole milliseconds).
      const offsets = await offsetsAtOrAfter(admin, physical(topic), Math.floor(time.getTime()) + 1);
      return offsets.map((mark) => ({ topic, partition: mark.partition, offset: mark.offset }));
    },
    async ping({ appends = true } = {}) {
      if (!topics.ensuredAny || !appends) {
        await admin.describeCluster();
        return;
      }
      await topics.checkAppendable();
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
