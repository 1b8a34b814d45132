import type { Redis } from 'ioredis';

/**
 * Whether Redis takes a write: a short-lived key under the environment's prefix. A PING is not
 * enough: a Redis at its maxmemory with `noeviction` (or a read-only replica) answers PING and
 * reads but refuses every write, so rate limits count in this process and refused postbacks are
 * lost while it looks healthy.
 */
export async function redisTakesWrites(redis: Redis, keyPrefix: string): Promise<void> {
  await redis.set(`${keyPrefix}health:write-probe`, '1', 'PX', 10_000);
}
