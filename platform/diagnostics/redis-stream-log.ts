import type { Redis } from 'ioredis';
import { MAX_ENTRY_ID_PART, type BoundedEntry, type BoundedLog, type LostEntry } from './bounded-log.js';

export interface RedisStreamLogOptions {
  key: string;
  /** The stream is trimmed to about this many entries (XADD MAXLEN ~). */
  maxLength: number;
  /** Entries waiting for Redis; beyond it new ones are dropped. */
  maxPending?: number;
  /** Entries sent to Redis in one pipeline. */
  batchSize?: number;
  /** How long close() waits for queued entries. */
  closeWaitMs?: number;
  onLost?: (why: LostEntry, count: number) => void;
}

const FIELD = 'v';

/**
 * Redis refuses an exclusive bound at either end of the id space (`(0-0` going down, `(max-max`
 * going up) with an error; no entry lies beyond one, so there is nothing to ask for.
 */
const idIs = (id: string, part: bigint) => {
  const [ms, seq] = id.split('-');
  return seq !== undefined && BigInt(ms!) === part && BigInt(seq) === part;
};

function entriesOf<T>(replies: [id: string, fields: string[]][]): BoundedEntry<T>[] {
  const entries: BoundedEntry<T>[] = [];
  for (const [id, fields] of replies) {
    const at = fields.indexOf(FIELD);
    if (at < 0 || at % 2 !== 0) continue;
    try {
      entries.push({ id, value: JSON.parse(fields[at + 1]!) as T });
    } catch {
      // Not one of ours: skipped, the page shows what it can read.
    }
  }
  return entries;
}

/**
 * A BoundedLog in a capped Redis stream, shared by every API process. Appends go to a bounded
 * in-process queue and are sent in the background, a pipeline at a time: a slow or unreachable
 * Redis fills the queue and loses entries (reported to onLost), it never reaches the caller.
 */
export function redisStreamLog<T>(redis: Redis, options: RedisStreamLogOptions): BoundedLog<T> {
  const { key, maxLength, maxPending = 1_000, batchSize = 100, closeWaitMs = 1_000, onLost = () => {} } = options;
  const queue: string[] = [];
  let draining: Promise<void> | undefined;
  let closed = false;

  async function drain() {
    while (queue.length > 0) {
      const batch = queue.splice(0, batchSize);
      const pipeline = redis.pipeline();
      for (const value of batch) pipeline.xadd(key, 'MAXLEN', '~', maxLength, '*', FIELD, value);
      const results = await pipeline.exec().catch(() => null);
      const failed = results === null ? batch.length : results.filter(([error]) => error).length;
      if (failed > 0) onLost('store_error', failed);
    }
  }

  async function flush() {
    while (draining) await draining;
  }

  return {
    append(value) {
      if (closed || queue.length >= maxPending) return onLost('queue_full', 1);
      queue.push(JSON.stringify(value));
      draining ??= drain().finally(() => (draining = undefined));
    },
    async older(before, count) {
      if (before !== undefined && idIs(before, 0n)) return [];
      return entriesOf<T>(await redis.xrevrange(key, before === undefined ? '+' : `(${before}`, '-', 'COUNT', count));
    },
    async newer(after, count) {
      if (idIs(after, MAX_ENTRY_ID_PART)) return [];
      return entriesOf<T>(await redis.xrange(key, `(${after}`, '+', 'COUNT', count));
    },
    flush,
    async close() {
      closed = true;
      // Shutdown waits a moment for queued entries, not for a Redis that does not answer.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([flush(), new Promise<void>((resolve) => (timer = setTimeout(resolve, closeWaitMs).unref()))]);
      clearTimeout(timer);
    },
  };
}
