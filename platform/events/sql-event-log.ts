import { EventEmitter } from 'node:events';
import { probe, type Db } from '../db/db.js';
import type { Metrics } from '../metrics/metrics.js';
import { forEachPage, openBoundedRead } from './bounded-read.js';
import { appendBatcher, type AppendBatcherOptions, type PartitionBase, type PartitionedMessage, type TopicMessages } from './append-batcher.js';
import { decodeUntilFailure, type EventCodec } from './codec.js';
import { UndecodableEventError } from './undecodable-event.js';
import { LogBoundError, type AppendOptions, type AppendedEvent, type EventLog, type LoggedEvent, type NewEvent, type SubscribeOptions, type TopicPartitionOffset } from './event-log.js';

/**
 * The event log in Postgres (PGlite on the embedded default). One partition per topic keeps
 * every key's order trivially. Offsets are gapless and assigned in commit order: the counter
 * row stays locked until the appending transaction commits, so a reader never sees offset n+1
 * before offset n.
 */
const PARTITION = 0;
/**
 * Events read at once. The embedded engine runs each statement on this thread and the API polls
 * for I/O only between statements, so it reads fewer at a time: a request then waits behind
 * shorter statements while a replay or a catch-up reads the log (500: the longest wait during a
 * replay of 40,000 served cards 133-151 ms against 244 ms with 1,000, the replay 15-35 % longer).
 */
const BATCH_SIZE = { postgres: 5_000, pglite: 500 } as const;
/** Another process may append to the same database; without a notification we look again this often. */
const IDLE_POLL_MS = 200;
const RETRY_AFTER_FAILURE_MS = 1_000;

interface LogRow {
  offset: string;
  key: string;
  value: Uint8Array;
  appended_at: Date;
}

export interface SqlLogOptions {
  topicPrefix: string;
  metrics?: Metrics;
  /** How appends share transactions; the defaults suit every process (tuning is for benchmarks). */
  batching?: Partial<Pick<AppendBatcherOptions<PartitionedMessage>, 'lingerMs' | 'maxMessages'>>;
}

export function sqlEventLog(db: Db, codec: EventCodec, options: SqlLogOptions): EventLog {
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  const physical = (topic: string) => `${options.topicPrefix}${topic}`;
  const subscriptions = new Set<{ stop(): Promise<void> }>();
  // Concurrent appends share one transaction (one commit, one turn of the counter row's lock).
  // No linger: a commit in flight is the wait that gathers the next batch.
  const batcher = appendBatcher<PartitionedMessage>({ lingerMs: 0, ...options.batching, write: writeBatch });

  /** One transaction; topics in name order, so two processes never lock counter rows in opposite orders. */
  async function writeBatch(batch: TopicMessages<PartitionedMessage>[]): Promise<PartitionBase[]> {
    options.metrics?.eventLogWrites.inc();
    const topics = [...batch].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
    return db.transaction(async (tx) => {
      const bases: PartitionBase[] = [];
      for (const { topic, messages } of topics) {
        const { rows } = await tx.query<{ next_offset: string }>(
          `INSERT INTO event_log_partitions (topic, partition, next_offset) VALUES ($1, $2, $3)
           ON CONFLICT (topic, partition) DO UPDATE SET next_offset = event_log_partitions.next_offset + $3
           RETURNING next_offset`,
          [topic, PARTITION, messages.length],
        );
        const start = BigInt(rows[0]!.next_offset) - BigInt(messages.length);
        await tx.query(
          `INSERT INTO event_log (topic, partition, "offset", key, value)
           SELECT $1, $2, $3::bigint + ordinal - 1, key, decode(value_hex, 'hex')
           FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS appended(key, value_hex, ordinal)`,
          [topic, PARTITION, start.toString(), messages.map((m) => m.key), messages.map((m) => m.value.toString('hex'))],
        );
        bases.push({ topicName: topic, partition: PARTITION, baseOffset: start.toString() });
      }
      return bases;
    });
  }

  /**
   * Per partition, the first offset logged at (or after) `time`; the end offset when there is none.
   * Times are compared to the millisecond, as events carry them: appended_at keeps microseconds,
   * and an event of 12:00:00.892719 was logged at .892, not after it.
   */
  async function firstOffsets(topic: string, time: Date, from: 'at' | 'after'): Promise<{ partition: number; offset: string }[]> {
    const bound = from === 'at' ? time : new Date(time.getTime() + 1);
    const { rows } = await db.query<{ partition: number; offset: string }>(
      `SELECT p.partition, coalesce(
         (SELECT min(e."offset") FROM event_log e WHERE e.topic = p.topic AND e.partition = p.partition AND e.appended_at >= $2),
         p.next_offset)::text AS "offset"
       FROM event_log_partitions p WHERE p.topic = $1`,
      [physical(topic), bound.toISOString()],
    );
    return rows;
  }

  /**
   * Events from `from` on, below `below` when given, up to the first that cannot be decoded: a
   * reader applies those, and its next read, starting at that event, fails naming it.
   */
  async function readBatch(topic: string, from: bigint, below: bigint | undefined): Promise<LoggedEvent[]> {
    const { rows } = await db.query<LogRow>(
      `SELECT "offset", key, value, appended_at FROM event_log
       WHERE topic = $1 AND partition = $2 AND "offset" >= $3 AND ($5::bigint IS NULL OR "offset" < $5)
       ORDER BY "offset" LIMIT $4`,
      [physical(topic), PARTITION, from.toString(), BATCH_SIZE[db.engine], below === undefined ? null : below.toString()],
    );
    const { decoded, failure } = await decodeUntilFailure(
      codec,
      rows.map((row) => Buffer.from(row.value)),
    );
    if (failure && decoded.length === 0) throw new UndecodableEventError(topic, PARTITION, rows[failure.index]!.offset, failure.error);
    return decoded.map((event, index) => ({
      topic,
      partition: PARTITION,
      offset: rows[index]!.offset,
      key: rows[index]!.key,
      type: event.type,
      value: event.value,
      schemaId: event.schemaId,
      timestamp: rows[index]!.appended_at,
    }));
  }

  return {
    kind: 'embedded',

    // Partition counts do not apply here: one partition per topic (see above).
    async ensureTopics(topics) {
      for (const { topic } of topics) {
        await db.query(
          `INSERT INTO event_log_partitions (topic, partition) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
          [physical(topic), PARTITION],
        );
      }
      return [];
    },

    async missingTopics(names) {
      const { rows } = await db.query<{ topic: string }>('SELECT DISTINCT topic FROM event_log_partitions WHERE topic = ANY($1::text[])', [names.map(physical)]);
      const existing = new Set(rows.map((row) => row.topic));
      return names.filter((name) => !existing.has(physical(name)));
    },

    async append(topic, events: NewEvent[], appendOptions: AppendOptions = {}): Promise<AppendedEvent[]> {
      if (events.length === 0) return [];
      const messages = await Promise.all(
        events.map(async (event) => ({ partition: PARTITION, key: event.key, value: await codec.encode(physical(topic), event.type, event.value) })),
      );
      const written = await batcher.append(physical(topic), messages, appendOptions);
      for (const event of events) options.metrics?.eventsProduced.inc({ topic, type: event.type });
      appended.emit('appended', topic);
      return written.map(({ partition, offset }) => ({ topic, partition, offset }));
    },

    async read(topic, bounds) {
      return openBoundedRead(topic, bounds, {
        async extents() {
          const { rows } = await db.query<{ partition: number; next_offset: string }>(
            'SELECT partition, next_offset FROM event_log_partitions WHERE topic = $1',
            [physical(topic)],
          );
          if (rows.length === 0) throw new LogBoundError('topic', `topic ${topic} does not exist on this log (${physical(topic)}): check TOPIC_PREFIX`);
          // Nothing is ever deleted from the embedded log: every partition starts at 0.
          return rows.map((row) => ({ partition: row.partition, low: 0n, high: BigInt(row.next_offset) }));
        },
        async offsetsAt(time) {
          return new Map((await firstOffsets(topic, time, 'at')).map((row) => [row.partition, BigInt(row.offset)]));
        },
        forEach: (spans, onBatch) => forEachPage(topic, spans, (_partition, from, below) => readBatch(topic, from, below), onBatch),
      });
    },

    async subscribe(subscription: SubscribeOptions) {
      const cursors = new Map(subscription.topics.map((topic) => [topic, 0n]));
      for (const resume of await subscription.resumeFrom()) {
        if (cursors.has(resume.topic) && resume.partition === PARTITION) cursors.set(resume.topic, BigInt(resume.offset));
      }
      let running = true;
      let wake: () => void = () => {};
      const onAppended = (topic: string) => {
        if (cursors.has(topic)) wake();
      };
      appended.on('appended', onAppended);
      const idle = (ms: number) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });

      const loop = (async () => {
        while (running) {
          let progressed = false;
          try {
            for (const topic of subscription.topics) {
              const from = cursors.get(topic)!;
              const below = subscription.until?.(topic, PARTITION);
              if (below !== undefined && from >= below) continue;
              const events = await readBatch(topic, from, below);
              if (events.length === 0 || !running) continue;
              await subscription.onBatch({ topic, partition: PARTITION, events });
              cursors.set(topic, BigInt(events[events.length - 1]!.offset) + 1n);
              progressed = true;
            }
          } catch (error) {
            if (!running) break;
            subscription.onError?.(error as Error);
            await idle(RETRY_AFTER_FAILURE_MS);
            continue;
          }
          if (!progressed && running) await idle(IDLE_POLL_MS);
          // The embedded engine answers on this thread without ever giving way to I/O: a catch-up
          // or a replay of many batches would keep the API from reading a single request.
          else await new Promise<void>((resolve) => setImmediate(resolve));
        }
      })();

      const handle = {
        resume: () => wake(),
        async stop() {
          running = false;
          wake();
          appended.off('appended', onAppended);
          await loop;
          subscriptions.delete(handle);
        },
      };
      subscriptions.add(handle);
      return handle;
    },

    async endOffsets(topic): Promise<TopicPartitionOffset[]> {
      const { rows } = await db.query<{ partition: number; next_offset: string }>(
        'SELECT partition, next_offset FROM event_log_partitions WHERE topic = $1',
        [physical(topic)],
      );
      return rows.map((row) => ({ topic, partition: row.partition, offset: row.next_offset }));
    },

    async offsetsAfter(topic, time): Promise<TopicPartitionOffset[]> {
      return (await firstOffsets(topic, time, 'after')).map((row) => ({ topic, partition: row.partition, offset: row.offset }));
    },

    async ping() {
      // On the probe session: requests holding every session of the pool are no log that does not answer.
      await probe(db, 'SELECT 1 FROM event_log_partitions LIMIT 1');
    },

    async close() {
      await batcher.flush();
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
    },
  };
}
