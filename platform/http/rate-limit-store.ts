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

/** Counts in Redis; a count Redis fails to give (down, or slower than its command timeout) is kept in this process instead. */
class FallbackStore implements RateLimitStore {
  constructor(private readonly shared: RateLimitStore, private readonly local: RateLimitStore) {}

  incr(key: string, done: Done, timeWindow: number, max: number) {
    this.shared.incr(key, (error, result) => (error ? this.local.incr(key, done, timeWindow, max) : done(null, result)), timeWindow, max);
  }

  read(key: string, done: Done, timeWindow: number, max: number) {
    this.shared.read(key, (error, result) => (error ? this.local.read(key, done, timeWindow, max) : done(null, result)), timeWindow, max);
  }

  child(routeOptions: unknown): RateLimitStore {
    return new FallbackStore(this.shared.child(routeOptions), this.local.child(routeOptions));
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
      return new FallbackStore(new RedisStore(continueExceeding, exponentialBackoff, redis, keyPrefix), new LocalStore(continueExceeding, exponentialBackoff));
    }
  } as unknown as FastifyRateLimitStoreCtor;
}
