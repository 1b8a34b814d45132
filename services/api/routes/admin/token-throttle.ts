import type { FastifyRequest } from 'fastify';
import { rateLimitKey } from '../../../../platform/http/client-key.js';
import { eventCounter } from '../../../../platform/http/rate-limit-store.js';
import type { Runtime } from '../../../../platform/runtime.js';

/** Wrong admin tokens a client address may present in a window before it is refused for the rest of it. */
export const ADMIN_TOKEN_FAILURES = 10;
export const ADMIN_TOKEN_WINDOW_MS = 60_000;

/**
 * Guesses of ADMIN_TOKEN, counted per client address (as the rate limits count: an IPv6 client by
 * its /64) over the admin API, the operator pages and the sign-in form together. Once a client has
 * presented ADMIN_TOKEN_FAILURES wrong tokens in a window, every token it presents is refused
 * (429) until the window ends, the right one too: otherwise a refusal would tell a guesser nothing
 * it could not learn from the next guess. A request with no token is no guess and is not counted.
 */
export interface AdminTokenThrottle {
  /** Seconds the client must wait before presenting a token again; 0 when it may. */
  refusedFor(request: FastifyRequest): Promise<number>;
  /** Counts a wrong token presented by the client. */
  failed(request: FastifyRequest): Promise<void>;
}

export function adminTokenThrottle(runtime: Runtime): AdminTokenThrottle {
  const counter = eventCounter(runtime.redis, `${runtime.config.topicPrefix}ratelimit:admin-token:`, ADMIN_TOKEN_WINDOW_MS);
  return {
    async refusedFor(request) {
      const { current, ttl } = await counter.read(rateLimitKey(request.ip));
      return current >= ADMIN_TOKEN_FAILURES && ttl > 0 ? Math.max(1, Math.ceil(ttl / 1000)) : 0;
    },
    async failed(request) {
      await counter.add(rateLimitKey(request.ip));
    },
  };
}

/** What a presented token is worth: none presented, the right one, a wrong one (counted), or refused for some seconds. */
export type TokenVerdict = 'none' | 'right' | 'wrong' | { refusedFor: number };

/** Judges a presented token; without a throttle (the owner's local socket) nothing is counted or refused. */
export async function judgeToken(request: FastifyRequest, presented: string, isAdminToken: (token: string) => boolean, throttle?: AdminTokenThrottle): Promise<TokenVerdict> {
  if (presented === '') return 'none';
  const wait = (await throttle?.refusedFor(request)) ?? 0;
  if (wait > 0) return { refusedFor: wait };
  if (isAdminToken(presented)) return 'right';
  await throttle?.failed(request);
  return 'wrong';
}
