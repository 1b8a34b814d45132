import { databaseIdentity } from '../db/database-identity.js';
import { COPY_FROM_ROWS } from '../db/copy-rows.js';
import type { Db } from '../db/db.js';
import { escapeIdentifier, escapeLiteral } from '../db/identifier.js';
import type { EventBatch, EventLog, Subscription, TopicPartitionOffset } from '../events/event-log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Projection } from './projection.js';
import { APPLIED_CHANNEL, storedOffsets, type AppliedPosition } from './offsets.js';
import { applyingWithBoundedWait, takingOverStalledRunners, UNBOUNDED_WAIT_AGAIN } from './stalled-holders.js';

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
 * and moves the offset past the batch. A crash before COMMIT leaves both untouched.
 */
export async function applyBatch(db: Db, projection: Projection, batch: EventBatch, options: ApplyOptions = {}): Promise<number> {
  return (await applyBatches(db, projection, [batch], options))[0]!;
}

/**
 * applyBatch for batches of different partitions at once, in one transaction (what one fetch of
 * the log hands over): their offset rows are locked in one statement that travels with BEGIN, in
 * one order so two runners never deadlock; the moves and their notifications travel with COMMIT.
 * A projection whose events of different partitions never touch the same rows
 * (`acrossPartitions`) writes them all in one call, so the whole fetch costs three round trips.
 * Resolves with the events applied per batch, in order.
 */
export async function applyBatches(db: Db, projection: Projection, batches: EventBatch[], options: ApplyOptions = {}): Promise<number[]> {
  const name = escapeLiteral(projection.name);
  const where = (batch: EventBatch) => `projection = ${name} AND topic = ${escapeLiteral(batch.topic)} AND partition = ${batch.partition}`;
  const locking = [...batches].sort(byTopicPartition);
  // A rebuild beside the live read model applies into that schema (set before anything is named).
  // Its commits need not wait for the disk: a rebuild that does not finish is never used, and the
  // swap that puts one in place commits synchronously, which flushes every earlier commit with it.
  const searchPath = options.schema
    ? `SELECT set_config('search_path', ${escapeLiteral(escapeIdentifier(options.schema))}, true), set_config('synchronous_commit', 'off', true);\n`
    : '';
  const apply = () => db.transactionWithEdges({
    // One statement creates the offset rows if needed and locks them until COMMIT (the no-op
    // update takes the row lock), so two runners of one projection never apply the same batch.
    // Its wait for them is bounded: a runner that stalled holding them is ended (stalled-holders.ts).
    opening: `${searchPath}${applyingWithBoundedWait(projection.name)};
       INSERT INTO projection_offsets (projection, topic, partition, next_offset)
       VALUES ${locking.map((batch) => `(${name}, ${escapeLiteral(batch.topic)}, ${batch.partition}, 0)`).join(', ')}
       ON CONFLICT (projection, topic, partition) DO UPDATE SET next_offset = projection_offsets.next_offset;
       ${UNBOUNDED_WAIT_AGAIN};
       SELECT topic, partition, next_offset FROM projection_offsets
       WHERE projection = ${name} AND (topic, partition) IN (${locking.map((batch) => `(${escapeLiteral(batch.topic)}, ${batch.partition})`).join(', ')})`,
    async body(tx, opened) {
      const stored = new Map(opened.map((row) => [`${row.topic as string}:${row.partition as number}`, BigInt(row.next_offset as string)]));
      const fresh = batches.map((batch) => batch.events.filter((event) => BigInt(event.offset) >= stored.get(`${batch.topic}:${batch.partition}`)!));
      if (projection.acrossPartitions) {
        const all = fresh.flat();
        if (all.length > 0) await projection.apply(tx, all);
      } else {
        for (const events of fresh) if (events.length > 0) await projection.apply(tx, events);
      }
      const moves = batches.flatMap((batch, index) => {
        const events = fresh[index]!;
        if (events.length === 0) return [];
        const next = (BigInt(events[events.length - 1]!.offset) + 1n).toString();
        const move = `UPDATE projection_offsets SET next_offset = ${next}, updated_at = now() WHERE ${where(batch)}`;
        // A rebuild beside the live read model: nobody waits for its commits, so nothing is announced.
        if (options.schema) return [move];
        // Announced in the same statement; the notification is delivered at COMMIT to every
        // listening process: readers waiting for their own writes wake.
        const position: AppliedPosition = { projection: projection.name, topic: batch.topic, partition: batch.partition, next };
        return [`WITH moved AS (${move} RETURNING 1) SELECT pg_notify(${escapeLiteral(APPLIED_CHANNEL)}, ${escapeLiteral(JSON.stringify(position))}) FROM moved`];
      });
      return { value: fresh.map((events) => events.length), closing: moves.join(';\n') };
    },
  });
  // A rebuild's own offset rows (options.schema) have no other runner to wait for.
  return options.schema ? apply() : takingOverStalledRunners(db, projection.name, locking, apply);
}

const byTopicPartition = (x: EventBatch, y: EventBatch) => (x.topic === y.topic ? x.partition - y.partition : x.topic < y.topic ? -1 : 1);

/**
 * applyBatches for a projection with `applyStatement` (it only inserts rows not there yet): one
 * round trip and one transaction. The offset rows are moved first, to the later of where they
 * are and past the batch, in one order: that takes their locks, so two runners of the
 * projection still take turns. Events applied before (a redelivery) insert nothing again, so
 * they need not be dropped first. The notifications travel in the same transaction. Resolves
 * with the events handed over per batch.
 */
export async function applyInOneStatement(db: Db, projection: Projection, batches: EventBatch[]): Promise<number[]> {
  const positions: AppliedPosition[] = [...batches].sort(byTopicPartition).map((batch) => ({
    projection: projection.name,
    topic: batch.topic,
    partition: batch.partition,
    next: (BigInt(batch.events[batch.events.length - 1]!.offset) + 1n).toString(),
  }));
  const name = escapeLiteral(projection.name);
  const statements = [
    applyingWithBoundedWait(projection.name),
    `INSERT INTO projection_offsets (projection, topic, partition, next_offset)
     VALUES ${positions.map((position) => `(${name}, ${escapeLiteral(position.topic)}, ${position.partition}, ${position.next})`).join(', ')}
     ON CONFLICT (projection, topic, partition)
     DO UPDATE SET next_offset = GREATEST(projection_offsets.next_offset, EXCLUDED.next_offset), updated_at = now()`,
    UNBOUNDED_WAIT_AGAIN,
    projection.applyStatement!(batches.flatMap((batch) => batch.events)),
    `SELECT ${positions.map((position) => `pg_notify(${escapeLiteral(APPLIED_CHANNEL)}, ${escapeLiteral(JSON.stringify(position))})`).join(', ')}`,
  ];
  await takingOverStalledRunners(db, projection.name, positions, () => db.execAtomically(statements.filter((statement) => statement !== '').join(';\n')));
  return batches.map((batch) => batch.events.length);
}

/**
 * Batches handed over together (the log's reader starts the partitions of one fetch in the same
 * turn of the event loop) are applied in one transaction: each caller's promise settles with the
 * whole group.
 */
function coalescing(apply: (batches: EventBatch[]) => Promise<number[]>): (batch: EventBatch) => Promise<number> {
  let pending: { batch: EventBatch; resolve(applied: number): void; reject(error: unknown): void }[] = [];
  const flush = () => {
    const group = pending;
    pending = [];
    if (group.length === 0) return;
    apply(group.map((entry) => entry.batch)).then(
      (applied) => group.forEach((entry, index) => entry.resolve(applied[index]!)),
      (error: unknown) => group.forEach((entry) => entry.reject(error)),
    );
  };
  return (batch) =>
    new Promise<number>((resolve, reject) => {
      // Two batches of one partition never share a transaction (the second must see the first's offset).
      if (pending.some((entry) => entry.batch.topic === batch.topic && entry.batch.partition === batch.partition)) flush();
      if (pending.length === 0) setImmediate(flush);
      pending.push({ batch, resolve, reject });
    });
}

export async function startProjection(projection: Projection, options: RunnerOptions): Promise<RunningProjection> {
  // The topics exist: every process creates them when it opens the log (platform/runtime.ts).
  const { db, eventLog, metrics } = options;
  // Projections whose partitions never share rows take a fetch's batches in one transaction;
  // the others apply each partition in its own, side by side. A small fetch of a projection that
  // only inserts new rows goes in one round trip; a large one by COPY (copy-rows.ts).
  const inOneStatement = (batches: EventBatch[]) =>
    projection.applyStatement !== undefined && batches.reduce((sum, batch) => sum + batch.events.length, 0) < COPY_FROM_ROWS;
  const applyTogether = projection.acrossPartitions
    ? coalescing((batches) => (inOneStatement(batches) ? applyInOneStatement(db, projection, batches) : applyBatches(db, projection, batches)))
    : (batch: EventBatch) => applyBatch(db, projection, batch);
  const subscription: Subscription = await eventLog.subscribe({
    // Projectors of one database share a group (they split the partitions); another database's
    // projectors on the same topics have groups of their own, and each database gets every event.
    group: `projection.${await databaseIdentity(db)}.${projection.name}`,
    topics: projection.topics,
    resumeFrom: () => storedOffsets(db, projection.name),
    onBatch: async (batch) => {
      const applied = await applyTogether(batch);
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
