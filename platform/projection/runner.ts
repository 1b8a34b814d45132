import type { Db } from '../db/db.js';
import { escapeIdentifier, escapeLiteral } from '../db/identifier.js';
import type { EventBatch, EventLog, Subscription, TopicPartitionOffset } from '../events/event-log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Projection } from './projection.js';
import { APPLIED_CHANNEL, storedOffsets, type AppliedPosition } from './offsets.js';

export { storedOffsets } from './offsets.js';

export interface RunningProjection {
  name: string;
  /** Events in the log that this projection has not applied yet, per topic-partition. */
  lag(): Promise<(TopicPartitionOffset & { lag: number })[]>;
  stop(): Promise<void>;
}

export interface RunnerOptions {
  db: Db;
  eventLog: EventLog;
  metrics?: Metrics;
  onBatchApplied?(projection: string, batch: EventBatch, applied: number): void;
  onError?(projection: string, error: Error): void;
}

export interface ApplyOptions {
  /**
   * Applies into this schema's tables and offsets instead (a replay beside the live read model):
   * the projection's SQL names its tables unqualified, so the search path decides. Its positions
   * are not published: live readers wait for the live read model only.
   */
  schema?: string;
}

/**
 * Applies one batch exactly once: inside one transaction it locks the partition's offset row,
 * drops events already applied (a redelivery after a crash), lets the projection write its rows,
 * and moves the offset past the batch. A crash before COMMIT leaves both untouched. The lock
 * travels with BEGIN and the move with COMMIT: a batch costs two round trips plus the
 * projection's own statements.
 */
export async function applyBatch(db: Db, projection: Projection, batch: EventBatch, options: ApplyOptions = {}): Promise<number> {
  const [name, topic, partition] = [escapeLiteral(projection.name), escapeLiteral(batch.topic), String(batch.partition)];
  // A rebuild beside the live read model applies into that schema (set before anything is named).
  const searchPath = options.schema ? `SELECT set_config('search_path', ${escapeLiteral(escapeIdentifier(options.schema))}, true);\n` : '';
  return db.transactionWithEdges({
    // One statement creates the offset row if needed and locks it until COMMIT (the no-op update
    // takes the row lock), so two runners of one projection never apply the same batch.
    opening: `${searchPath}INSERT INTO projection_offsets (projection, topic, partition, next_offset) VALUES (${name}, ${topic}, ${partition}, 0)
       ON CONFLICT (projection, topic, partition) DO UPDATE SET next_offset = projection_offsets.next_offset
       RETURNING next_offset`,
    async body(tx, opened) {
      const stored = BigInt(opened[0]!.next_offset as string);
      const fresh = batch.events.filter((event) => BigInt(event.offset) >= stored);
      if (fresh.length === 0) return { value: 0, closing: '' };
      await projection.apply(tx, fresh);
      const next = (BigInt(fresh[fresh.length - 1]!.offset) + 1n).toString();
      const move = `UPDATE projection_offsets SET next_offset = ${next}, updated_at = now()
         WHERE projection = ${name} AND topic = ${topic} AND partition = ${partition}`;
      // A rebuild beside the live read model: nobody waits for its commits, so nothing is announced.
      if (options.schema) return { value: fresh.length, closing: move };
      // Announced in the same statement; the notification is delivered at COMMIT to every
      // listening process: readers waiting for their own writes wake.
      const position: AppliedPosition = { projection: projection.name, topic: batch.topic, partition: batch.partition, next };
      return {
        value: fresh.length,
        closing: `WITH moved AS (${move} RETURNING 1)
       SELECT pg_notify(${escapeLiteral(APPLIED_CHANNEL)}, ${escapeLiteral(JSON.stringify(position))}) FROM moved`,
      };
    },
  });
}

export async function startProjection(projection: Projection, options: RunnerOptions): Promise<RunningProjection> {
  // The topics exist: every process creates them when it opens the log (platform/runtime.ts).
  const { db, eventLog, metrics } = options;
  const subscription: Subscription = await eventLog.subscribe({
    group: `projection.${projection.name}`,
    topics: projection.topics,
    resumeFrom: () => storedOffsets(db, projection.name),
    onBatch: async (batch) => {
      const applied = await applyBatch(db, projection, batch);
      metrics?.eventsConsumed.inc({ projection: projection.name, topic: batch.topic }, applied);
      options.onBatchApplied?.(projection.name, batch, applied);
    },
    onError: (error) => options.onError?.(projection.name, error),
  });

  return {
    name: projection.name,
    async lag() {
      const applied = new Map((await storedOffsets(db, projection.name)).map((o) => [`${o.topic}:${o.partition}`, BigInt(o.offset)]));
      const result: (TopicPartitionOffset & { lag: number })[] = [];
      for (const topic of projection.topics) {
        for (const end of await eventLog.endOffsets(topic)) {
          const done = applied.get(`${topic}:${end.partition}`) ?? 0n;
          const lag = Number(BigInt(end.offset) - done);
          metrics?.projectorLag.set({ projection: projection.name, topic, partition: String(end.partition) }, lag);
          result.push({ ...end, lag });
        }
      }
      return result;
    },
    stop: () => subscription.stop(),
  };
}
