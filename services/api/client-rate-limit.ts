import type { FastifyRequest } from 'fastify';
import { rateLimitKey } from '../../platform/http/client-key.js';
import { failure } from '../../platform/http/envelope.js';
import { tooManyRequests } from '../../platform/http/errors.js';
import type { ResponseExample } from '../../platform/http/response-examples.js';
import { inProcessCounts, redisWithLocalFallback } from '../../platform/http/rate-limit-store.js';
import type { Runtime } from '../../platform/runtime.js';

/**
 * The options of @fastify/rate-limit for a limit of `max` requests per client address (the
 * socket's, or the one a proxy in TRUSTED_PROXIES gives; an IPv6 one by its /64) per minute, answered with the
 * reference's 429 RATE_LIMITED. Counts are shared across API processes when Redis is configured
 * (kept in this process while Redis cannot answer), in-process otherwise; `name` keeps each limit's
 * counts apart, and the environment's prefix (TOPIC_PREFIX) environments sharing one Redis.
 * `exempt` requests are not counted.
 */
export function perClientRateLimit(runtime: Runtime, name: string, max: number, exempt?: (request: FastifyRequest) => Promise<boolean>) {
  return {
    max,
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) => rateLimitKey(request.ip),
    store: runtime.redis ? redisWithLocalFallback(runtime.redis, `${runtime.config.topicPrefix}ratelimit:${name}:`) : inProcessCounts(),
    ...(exempt && { allowList: exempt }),
    errorResponseBuilder: (_request: unknown, context: { ttl: number }) => tooManyRequests(Math.max(1, Math.ceil(context.ttl / 1000))),
  };
}

/** The 429 example of every rate-limited route's documentation. */
export const RATE_LIMITED_EXAMPLES: Record<string, ResponseExample> = {
  RATE_LIMITED: { summary: 'too many requests in a short window', value: failure('RATE_LIMITED', tooManyRequests(12).message, { retry_after_seconds: 12 }) },
};
