import type { FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { rateLimitKey } from './client-key.js';
import { eventCounter } from './rate-limit-store.js';

/** Wrong tokens a client address may present in a window before it is refused for the rest of it. */
export const TOKEN_FAILURES = 10;
export const TOKEN_WINDOW_MS = 60_000;

/**
 * Guesses of one configured token (ADMIN_TOKEN, METRICS_TOKEN), counted per client address (as
 * the rate limits count: an IPv6 client by its /64) in Redis under `keyPrefix`, or in this
 * process without Redis. Once a client has presented TOKEN_FAILURES wrong tokens in a window,
 * every token it presents is refused (429) until the window ends, the right one too: otherwise a
 * refusal would tell a guesser nothing it could not learn from the next guess. A request with no
 * token is no guess and is not counted.
 */
export interface TokenThrottle {
  /** Seconds the client must wait before presenting a token again; 0 when it may. */
  refusedFor(request: FastifyRequest): Promise<number>;
  /** Counts a wrong token presented by the client. */
  failed(request: FastifyRequest): Promise<void>;
}

export function tokenThrottle(redis: Redis | undefined, keyPrefix: string): TokenThrottle {
  const counter = eventCounter(redis, keyPrefix, TOKEN_WINDOW_MS);
  return {
    async refusedFor(request) {
      const { current, ttl } = await counter.read(rateLimitKey(request.ip));
      return current >= TOKEN_FAILURES && ttl > 0 ? Math.max(1, Math.ceil(ttl / 1000)) : 0;
    },
    async failed(request) {
      await counter.add(rateLimitKey(request.ip));
    },
  };
}

/** What a presented token is worth: none presented, the right one, a wrong one (counted), or refused for some seconds. */
export type TokenVerdict = 'none' | 'right' | 'wrong' | { refusedFor: number };

/** Judges a presented token; without a throttle (the owner's local socket) nothing is counted or refused. */
export async function judgeToken(request: FastifyRequest, presented: string, isToken: (token: string) => boolean, throttle?: TokenThrottle): Promise<TokenVerdict> {
  if (presented === '') return 'none';
  const wait = (await throttle?.refusedFor(request)) ?? 0;
  if (wait > 0) return { refusedFor: wait };
  if (isToken(presented)) return 'right';
  await throttle?.failed(request);
  return 'wrong';
}
