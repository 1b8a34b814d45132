import { randomUUID } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';
import type { BoundedSource } from './bounded-read.js';
import type { EventCodec } from './codec.js';
import { BackendUnavailableError } from '../startup.js';
import { LogBoundError } from './event-log.js';
import { heartbeatWhile } from './heartbeat-while.js';
import { decodeMessagesUntilFailure } from './kafka-messages.js';
import { offsetsAtOrAfter } from './kafka-offsets-by-time.js';
import { isUnpropagatedTopic, retryRetriable } from './kafka-retry.js';
import { existingTopics } from './kafka-topic-state.js';

export interface KafkaReadContext {
  kafka: Kafka;
  admin: Admin;
  codec: EventCodec;
  topicPrefix: string;
  /** The read's consumer session (kafkajs' 30 s by default; tests shorten it to the broker's least). */
  sessionTimeoutMs?: number;
}

/** Heartbeats while a batch is handed over, as the projections' consumers do (kafka-subscription.ts). */
const HEARTBEAT_MS = 1_000;

/**
 * A bounded read of one Kafka topic with a consumer of its own: a fresh group (kafkajs has no
 * group-less assignment) that seeks each partition to its span's start as it joins, pauses each
 * once it reaches its span's end, and is deleted afterwards. (Seeking beats admin.setOffsets,
 * which waits for a whole fetch wait of a consumer of its own.)
 */
export function kafkaBoundedSource(context: KafkaReadContext, topic: string): BoundedSource {
  const { kafka, admin, codec } = context;
  const physical = `${context.topicPrefix}${topic}`;
  return {
    async extents() {
      // Checked first: offsets of a missing topic are a retriable error kafkajs would retry for long.
      const topics = await existingTopics(admin, [physical]);
      if (!topics.has(physical)) throw new LogBoundError('topic', `topic ${topic} does not exist on this log (${physical}): check TOPIC_PREFIX and KAFKA_BROKERS`);
      const marks = await retryRetriable(() => admin.fetchTopicOffsets(physical), 12, isUnpropagatedTopic);
      return marks.map((mark) => ({ partition: mark.partition, low: BigInt(mark.low), high: BigInt(mark.high) }));
    },
    async offsetsAt(time) {
      const offsets = await offsetsAtOrAfter(admin, physical, time.getTime());
      return new Map(offsets.map((mark) => [mark.partition, BigInt(mark.offset)]));
    },
    async forEach(spans, onBatch) {
      /** The next offset to hand over, per partition. */
      const cursors = new Map(spans.map((span) => [span.partition, BigInt(span.from)]));
      const ends = new Map(spans.filter((span) => BigInt(span.to) > BigInt(span.from)).map((span) => [span.partition, BigInt(span.to)]));
      if (ends.size === 0) return;
      const groupId = `${context.topicPrefix}read.${topic}.${randomUUID()}`;
      const consumer = kafka.consumer({
        groupId,
        allowAutoTopicCreation: false,
        maxWaitTimeInMs: 100,
        heartbeatInterval: HEARTBEAT_MS,
        ...(context.sessionTimeoutMs === undefined ? {} : { sessionTimeout: context.sessionTimeoutMs }),
      });
      let finish: () => void = () => {};
      let fail: (error: unknown) => void = () => {};
      const done = new Promise<void>((resolve, reject) => {
        finish = resolve;
        fail = reject;
      });
      const stopAt = (partition: number) => consumer.pause([{ topic: physical, partitions: [partition] }]);
      // A crash fails the read, even one kafkajs would restart from: its retries (a few seconds)
      // are spent, and a restarted consumer would start at the topic's end, never reaching the
      // span's, so the read would wait for good.
      const logStopped = (error: Error) =>
        new BackendUnavailableError('KAFKA_BROKERS', `the log stopped answering in the middle of the read (${error.message})`, 'start Kafka (or check KAFKA_BROKERS), then run it again');
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        ends.clear();
        fail(logStopped(payload.error));
      });
      // The read fails as a whole: nothing more is handed over, whatever kafkajs would retry.
      const stopReading = (error: unknown) => {
        ends.clear();
        consumer.pause([{ topic: physical }]);
        fail(error);
      };
      try {
        await consumer.connect();
        await consumer.subscribe({ topics: [physical] });
        await consumer.run({
          autoCommit: false,
          eachBatch: async ({ batch, heartbeat }) => {
            const end = ends.get(batch.partition);
            // A partition with nothing to read (or read to its end) only sees events appended since.
            if (end === undefined) return stopAt(batch.partition);
            try {
              const cursor = cursors.get(batch.partition)!;
              const messages = batch.messages.filter((message) => BigInt(message.offset) >= cursor && BigInt(message.offset) < end);
              if (messages.length > 0) {
                // What comes before an event that cannot be decoded is handed over; the read then
                // fails naming that event.
                const { events, undecodable } = await decodeMessagesUntilFailure(codec, topic, batch.partition, messages);
                // A batch may take longer than the session (an export's file on a slow disk, a
                // pipe whose reader stalls): without heartbeats meanwhile the group drops the
                // member and the read fails at its next heartbeat, its file half written.
                if (events.length > 0) await heartbeatWhile(heartbeat, HEARTBEAT_MS, () => onBatch({ topic, partition: batch.partition, events }));
                if (undecodable) throw undecodable;
                cursors.set(batch.partition, BigInt(messages[messages.length - 1]!.offset) + 1n);
              }
              // Done once a batch read from where the partition stands reaches the end (a batch
              // fetched from elsewhere before the seek took hold says nothing about the span).
              const first = BigInt(batch.firstOffset() ?? batch.lastOffset());
              if (first <= cursor && BigInt(batch.lastOffset()) + 1n >= end) {
                ends.delete(batch.partition);
                stopAt(batch.partition);
                if (ends.size === 0) finish();
              }
            } catch (error) {
              return stopReading(error);
            }
            // Only the log fails a heartbeat (a broker gone, the group lost): as a crash of the consumer.
            await heartbeat().catch((error: Error) => stopReading(logStopped(error)));
          },
        });
        // A fetch answered for a partition with a seek pending is dropped, so nothing before the start is handed over.
        for (const span of spans) consumer.seek({ topic: physical, partition: span.partition, offset: span.from });
        await done;
      } finally {
        await consumer.disconnect();
        await admin.deleteGroups([groupId]).catch(() => {
          // Best effort: an empty group expires with the broker's offset retention anyway.
        });
      }
    },
  };
}
