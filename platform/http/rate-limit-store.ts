import { createRequire } from 'node:module';
import type { FastifyRateLimitOptions, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

/** What @fastify/rate-limit asks of a store (its own stores' shape). */
type Counted = { current: number; ttl: number };
type Done = (error: Error | null, result: Counted | null) => void;
interface RateLimitStore {
  incr(key: string, done: Done, timeWindow: number, max: number): void;
  read(key: string, done: Done, timeWindow: number, max: number): void;
  child(routeOptions: unknown): RateLimitStore;
}

// The plugin's own stores, used as they are: Redis for counts shared by every API process, the
// in-process LRU for when Redis cannot answer.
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key: string) => RateLimitStore;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => RateLimitStore;

/**
 * After Redis fails a count, how long every limit of this process counts in process before Redis
 * is asked again: a stalled Redis then costs one command timeout (500 ms) per pause instead of
 * one per request (without it every link open took 510 ms while Redis hung).
 */
export const SHARED_COUNT_PAUSE_MS = 5_000;

/**
 * Until when counts skip Redis, per Redis connection (every limit of a process shares it), on the
 * monotonic clock: a wall clock stepped back would otherwise stretch the pause by the step.
 */
const pausedUntil = new WeakMap<Redis, number>();

/** Counts in Redis; a count Redis fails to give (down, or slower than its command timeout) is kept in this process instead, and so are all counts for SHARED_COUNT_PAUSE_MS after. */
class FallbackStore implements RateLimitStore {
  constructor(private readonly redis: Redis, private readonly shared: RateLimitStore, private readonly local: RateLimitStore) {}

  private sharedAnswers(): boolean {
    return performance.now() >= (pausedUntil.get(this.redis) ?? 0);
  }

  private orLocally(count: (store: RateLimitStore, done: Done) => void, done: Done) {
    if (!this.sharedAnswers()) return count(this.local, done);
    count(this.shared, (error, result) => {
      if (!error) return done(null, result);
      pausedUntil.set(this.redis, performance.now() + SHARED_COUNT_PAUSE_MS);
      count(this.local, done);
    });
  }

  incr(key: string, done: Done, timeWindow: number, max: number) {
    this.orLocally((store, answer) => store.incr(key, answer, timeWindow, max), done);
  }

  read(key: string, done: Done, timeWindow: number, max: number) {
    this.orLocally((store, answer) => store.read(key, answer, timeWindow, max), done);
  }

  child(routeOptions: unknown): RateLimitStore {
    return new FallbackStore(this.redis, this.shared.child(routeOptions), this.local.child(routeOptions));
  }
}

/**
 * The `store` option of @fastify/rate-limit: limits shared through Redis, and still enforced
 * per process while Redis is down or stalled (Redis never holds the only copy of a limit either).
 */
export function redisWithLocalFallback(redis: Redis, keyPrefix: string): FastifyRateLimitStoreCtor {
  return class {
    // The plugin hands its store its global parameters (the declared type names fewer of them).
    constructor(settings: FastifyRateLimitOptions & { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const [continueExceeding, exponentialBackoff] = [settings.continueExceeding ?? false, settings.exponentialBackoff ?? false];
      return new FallbackStore(redis, new RedisStore(continueExceeding, exponentialBackoff, redis, keyPrefix), new LocalStore(continueExceeding, exponentialBackoff));
    }
  } as unknown as FastifyRateLimitStoreCtor;
}

/** A count in a fixed window: how many, and the milliseconds left of the window (0: none open). */
export type WindowCount = Counted;

/**
 * Counts of events that are not requests (failed sign-ins), per key in a fixed window: in Redis
 * for every API process, kept in this process while Redis cannot answer, in process without Redis.
 */
export interface EventCounter {
  /** Counts one more for `key`. */
  add(key: string): Promise<WindowCount>;
  /** What `key` has counted, counting nothing. */
  read(key: string): Promise<WindowCount>;
}

export function eventCounter(redis: Redis | undefined, keyPrefix: string, windowMs: number): EventCounter {
  const local = new LocalStore(false, false);
  const store = redis ? new FallbackStore(redis, new RedisStore(false, false, redis, keyPrefix), local) : local;
  const promised = (count: (done: Done) => void) =>
    new Promise<WindowCount>((resolve, reject) => count((error, result) => (error || !result ? reject(error ?? new Error('no count')) : resolve(result))));
  return {
    add: (key) => promised((done) => store.incr(key, done, windowMs, Number.MAX_SAFE_INTEGER)),
    read: (key) => promised((done) => store.read(key, done, windowMs, Number.MAX_SAFE_INTEGER)),
  };
}
