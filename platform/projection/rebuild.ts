import { PAST_DEADLINE, withinDeadline } from '../async/deadline.js';
import type { Db } from '../db/db.js';
import { BackendUnavailableError } from '../startup.js';
import type { EventLog, Subscription } from '../events/event-log.js';
import { listPositions, positionKey, positionsIn, type Positions } from './positions.js';
import type { Projection } from './projection.js';
import { applyBatch } from './runner.js';

export interface RebuildProgress {
  /** Events applied so far (an event read by two projections counts twice). */
  applied: number;
  /** Events to apply to reach the current bounds. */
  target: number;
  /** A replay's step once its events are applied; absent while it applies them. */
  step?: ReplayStep;
}

/** What a replay does after applying its events, each taking seconds to minutes on large tables. */
export type ReplayStep = 'building indexes' | 'checksumming' | 'comparing' | 'swapping';

export interface Rebuild {
  /**
   * Raises the bounds to these positions (a bound is never lowered) and resolves once every
   * partition has reached its bound; rejects when a batch fails or `timeoutMs` passes first.
   */
  reach(bounds: Positions, timeoutMs?: number): Promise<void>;
  progress(): RebuildProgress;
  stop(): Promise<void>;
}

/**
 * A rebuild whose log stops answering waits for it (a consumer retries on its own) for at most
 * this long, then fails as an unavailable backend (exit 4), rather than sit at 0 events/s.
 */
export const UNANSWERED_LOG_LIMIT_MS = 60_000;
/** How often a rebuild that applied nothing since the last look asks whether its log answers. */
const STALL_CHECK_MS = 5_000;
const PING_DEADLINE_MS = 3_000;

export interface RebuildOptions {
  db: Db;
  eventLog: EventLog;
  /** Schema holding empty copies of the projections' tables and a projection_offsets (replay-schema.ts). */
  schema: string;
  projections: Projection[];
  onProgress?(progress: RebuildProgress): void;
}

/**
 * Builds read models from the start of the log into a schema of their own, each projection
 * through its own one-off consumer group, and each batch applied exactly as the live projector
 * does (applyBatch: rows and offsets in one transaction), only with that schema on the search
 * path. Nothing is delivered past the bounds, and nothing is skipped below them: a partition
 * waits at its bound until reach() raises it.
 */
export async function startRebuild(options: RebuildOptions): Promise<Rebuild> {
  const { db, eventLog, schema } = options;
  const bounds: Positions = new Map();
  const applied: Positions = new Map();
  const waiters = new Set<() => void>();
  let failure: Error | undefined;
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  const progress = (): RebuildProgress => {
    let done = 0n;
    let target = 0n;
    for (const [key, bound] of bounds) {
      target += bound;
      const at = applied.get(key) ?? 0n;
      done += at < bound ? at : bound;
    }
    return { applied: Number(done), target: Number(target) };
  };
  const reached = () => [...bounds].every(([key, bound]) => (applied.get(key) ?? 0n) >= bound);

  const subscriptions: Subscription[] = [];
  const stop = async () => {
    await Promise.all(subscriptions.splice(0).map((subscription) => subscription.stop()));
  };
  try {
    for (const projection of options.projections) {
      const subscription = await eventLog.subscribe({
        group: `replay.${schema}.${projection.name}`,
        topics: projection.topics,
        ephemeral: true,
        resumeFrom: async () =>
          listPositions(await positionsIn(db, schema, [projection.name])).map((p) => ({ topic: p.topic, partition: p.partition, offset: p.next })),
        until: (topic, partition) => bounds.get(positionKey(projection.name, topic, partition)) ?? 0n,
        onBatch: async (batch) => {
          await applyBatch(db, projection, batch, { schema });
          applied.set(positionKey(projection.name, batch.topic, batch.partition), BigInt(batch.events[batch.events.length - 1]!.offset) + 1n);
          options.onProgress?.(progress());
          wake();
        },
        onError: (error) => {
          // A backend that is unavailable (the embedded database's disk out of room) stays one: exit 4, not 1.
          failure ??= error instanceof BackendUnavailableError
            ? error
            : new Error(`rebuilding the ${projection.name} read model failed: ${error.message}`);
          wake();
        },
      });
      subscriptions.push(subscription);
    }
  } catch (error) {
    await stop();
    throw error;
  }

  /**
   * A bound past the log's end can never be reached: the read models were built from another log
   * (another TOPIC_PREFIX, broker or DATA_DIR). Said at once rather than waited on forever.
   */
  const checkWithinLog = async (target: Positions) => {
    const ends = new Map<string, bigint>();
    for (const topic of new Set(options.projections.flatMap((projection) => projection.topics))) {
      for (const end of await eventLog.endOffsets(topic)) ends.set(`${topic}/${end.partition}`, BigInt(end.offset));
    }
    for (const projection of options.projections) {
      for (const [key, end] of ends) {
        const bound = target.get(`${projection.name}/${key}`);
        if (bound !== undefined && bound > end) {
          throw new Error(
            `the ${projection.name} read model has applied ${key} up to offset ${bound}, but that partition of the log ends at ${end}: ` +
              'it was built from another log; check KAFKA_BROKERS, TOPIC_PREFIX or DATA_DIR',
          );
        }
      }
    }
  };

  return {
    async reach(target, timeoutMs = 0) {
      await checkWithinLog(target);
      for (const [key, bound] of target) if (bound > (bounds.get(key) ?? 0n)) bounds.set(key, bound);
      for (const subscription of subscriptions) subscription.resume();
      options.onProgress?.(progress());
      return new Promise<void>((resolve, reject) => {
        const timer = timeoutMs > 0 ? setTimeout(() => finish(new Error(`the rebuild did not reach the log positions within ${timeoutMs / 1000} s`)), timeoutMs) : undefined;
        const watchdog = watchForAnUnansweredLog(eventLog, () => progress().applied, (error) => finish(error));
        const finish = (error?: Error) => {
          clearTimeout(timer);
          clearInterval(watchdog);
          waiters.delete(check);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (failure) finish(failure);
          else if (reached()) finish();
        };
        waiters.add(check);
        check();
      });
    },
    progress,
    stop,
  };
}

/**
 * Every STALL_CHECK_MS while `applied` stands still, asks whether the log answers; once it has not
 * answered for UNANSWERED_LOG_LIMIT_MS, calls `giveUp` once with the backend named (exit 4) and stops.
 */
export function watchForAnUnansweredLog(eventLog: EventLog, applied: () => number, giveUp: (error: Error) => void): NodeJS.Timeout {
  let seen = applied();
  let unansweredSince: number | undefined;
  let asking = false;
  const timer = setInterval(() => {
    if (asking) return;
    if (applied() !== seen) {
      seen = applied();
      unansweredSince = undefined;
      return;
    }
    asking = true;
    const ping = eventLog.ping({ appends: false });
    withinDeadline(ping, PING_DEADLINE_MS).then(
      (answer) => answer === PAST_DEADLINE ? noAnswer(new Error(`no answer within ${PING_DEADLINE_MS / 1000} s`)) : (unansweredSince = undefined),
      noAnswer,
    ).finally(() => {
      asking = false;
    });
    // A ping that outlives its deadline must not fail the process once it settles.
    ping.catch(() => {});
  }, STALL_CHECK_MS).unref();
  return timer;

  function noAnswer(error: Error) {
    // Monotonic: a wall clock stepped forward must not make a log silent for a moment look silent for the limit.
    unansweredSince ??= performance.now() - STALL_CHECK_MS;
    const silentMs = performance.now() - unansweredSince;
    if (silentMs < UNANSWERED_LOG_LIMIT_MS) return;
    const [setting, hint] = eventLog.kind === 'kafka'
      ? ['KAFKA_BROKERS', 'start Kafka (or check KAFKA_BROKERS), then run the replay again; this replay was not kept']
      : ['DATABASE_URL', 'check the database holding the event log (DATABASE_URL, or the embedded one in DATA_DIR), then run the replay again; this replay was not kept'];
    clearInterval(timer);
    giveUp(new BackendUnavailableError(setting, `the event log has not answered for ${Math.round(silentMs / 1000)} s while the replay waited on it (${error.message})`, hint));
  }
}
