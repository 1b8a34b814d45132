import { createRequire } from 'node:module';
import type { FastifyRateLimitOptions, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { LocalWindowStore, type Counted, type Done, type RateLimitStore } from './local-window-store.js';

// The plugin's Redis store, used as it is, for counts shared by every API process; counts kept in
// this process (when Redis cannot answer, or without Redis) are LocalWindowStore's.
const require = createRequire(import.meta.url);
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key: string) => RateLimitStore;

/** The plugin's global parameters as it hands them to a store (the declared type names fewer of them). */
type StoreSettings = FastifyRateLimitOptions & { continueExceeding?: boolean; exponentialBackoff?: boolean };

/** Fixed windows only: the in-process store has no continueExceeding or exponentialBackoff, so a limit asking for either is refused at start. */
function fixedWindowsOnly(settings: StoreSettings) {
  if (settings.continueExceeding || settings.exponentialBackoff) throw new Error('rate limits here count in fixed windows: continueExceeding and exponentialBackoff are not supported');
}

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
export const redisWithLocalFallback = (redis: Redis, keyPrefix: string): FastifyRateLimitStoreCtor =>
  storeFor(() => new FallbackStore(redis, new RedisStore(false, false, redis, keyPrefix), new LocalWindowStore()));

/** The `store` option of @fastify/rate-limit without Redis: limits counted in this process. */
export const inProcessCounts = (): FastifyRateLimitStoreCtor => storeFor(() => new LocalWindowStore());

/** A store class as the plugin constructs one (with its global parameters), answering `make()`'s store. */
function storeFor(make: () => RateLimitStore): FastifyRateLimitStoreCtor {
  return class {
    constructor(settings: StoreSettings) {
      fixedWindowsOnly(settings);
      return make();
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
  const local = new LocalWindowStore();
  const store = redis ? new FallbackStore(redis, new RedisStore(false, false, redis, keyPrefix), local) : local;
  const promised = (count: (done: Done) => void) =>
    new Promise<WindowCount>((resolve, reject) => count((error, result) => (error || !result ? reject(error ?? new Error('no count')) : resolve(result))));
  return {
    add: (key) => promised((done) => store.incr(key, done, windowMs, Number.MAX_SAFE_INTEGER)),
    read: (key) => promised((done) => store.read(key, done, windowMs, Number.MAX_SAFE_INTEGER)),
  };
}
