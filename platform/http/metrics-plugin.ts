import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { coalesced } from '../async/coalesced.js';
import { onAnswered } from './answered-requests.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Runtime } from '../runtime.js';
import { failure } from './envelope.js';
import { errorStatuses, methodNotAllowedStatus, type ErrorCodes } from './envelope-schema.js';
import { methodNotAllowedExample, withExamples } from './response-examples.js';
import { ApiError, tooManyRequests } from './errors.js';
import { bearerOf, tokenCheck } from './token-check.js';
import { judgeToken, TOKEN_FAILURES, TOKEN_WINDOW_MS, tokenThrottle, type TokenThrottle } from './token-throttle.js';

/** An excerpt of a scrape, the document's example of GET /metrics. */
const SCRAPE_EXAMPLE = [
  '# HELP http_request_duration_seconds HTTP request latency by route and status',
  '# TYPE http_request_duration_seconds histogram',
  'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v1/locations/search",status="200"} 41',
  'http_request_duration_seconds_count{method="GET",route="/v1/locations/search",status="200"} 42',
  '',
].join('\n');

const UNAUTHORIZED_WHEN = 'Authorization is not Bearer METRICS_TOKEN';
const UNAUTHORIZED_MESSAGE = 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>';
const RATE_LIMITED_WHEN = `this client address presented ${TOKEN_FAILURES} wrong tokens in ${TOKEN_WINDOW_MS / 1000} s: every token it presents is refused until the window ends; retry after extra.retry_after_seconds`;

/** Guesses of METRICS_TOKEN, counted apart from the admin token's: a scraper with a stale token does not lock operators out. */
export const metricsTokenThrottle = (runtime: Pick<Runtime, 'redis' | 'config'>): TokenThrottle =>
  tokenThrottle(runtime.redis, `${runtime.config.topicPrefix}ratelimit:metrics-token:`);

/**
 * Records one latency observation per response, labelled by the route pattern (not the raw URL),
 * and serves the registry as GET /metrics (grouped in the document under `tags`), to callers
 * presenting `token` as a bearer token when one is given (METRICS_TOKEN), wrong ones counted by
 * `throttle` as wrong admin tokens are.
 */
export const httpMetrics = fp(async (app: FastifyInstance, options: { metrics: Metrics; tags?: string[]; token?: string; throttle?: TokenThrottle }) => {
  const { metrics, tags, token, throttle } = options;
  const presentsToken = token === undefined ? undefined : tokenCheck(token);
  // A refresh reads the database and the log (the projector lag: a query and a Kafka offsets
  // request per projection). Scrapes arriving together share one, so a flood of GET /metrics
  // (anyone's, without METRICS_TOKEN) costs the backends one refresh at a time, not one each.
  // A failing refresh must not hide the other series; the stale value stays.
  const refresh = coalesced(() => Promise.allSettled(metrics.beforeScrape.map((each) => each())));
  onAnswered(app, (request, reply, elapsedMs) => {
    metrics.httpDuration.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }, elapsedMs / 1000);
  });
  const refusals: Record<number, ErrorCodes> = methodNotAllowedStatus('GET, HEAD');
  if (presentsToken) refusals[401] = { UNAUTHORIZED: UNAUTHORIZED_WHEN };
  if (presentsToken && throttle) refusals[429] = { RATE_LIMITED: RATE_LIMITED_WHEN };
  app.get('/metrics', {
    logLevel: 'warn',
    schema: {
      summary: 'Prometheus metrics',
      ...(tags ? { tags } : {}),
      response: withExamples<Record<number | string, object>>(
        {
          200: {
            description: 'Prometheus text exposition format',
            content: { 'text/plain': { schema: { type: 'string' }, examples: { scrape: { summary: 'an excerpt', value: SCRAPE_EXAMPLE } } } },
          },
          // The HTTP layer's refusals (417, 431, …) come on this route too: its 4XX and 5XX ranges.
          ...errorStatuses(refusals),
        },
        {
          ...(presentsToken && { 401: { UNAUTHORIZED: { summary: UNAUTHORIZED_WHEN, value: failure('UNAUTHORIZED', UNAUTHORIZED_MESSAGE) } } }),
          ...(presentsToken && throttle && { 429: { RATE_LIMITED: { summary: 'too many wrong tokens from this address', value: failure('RATE_LIMITED', tooManyRequests(42).message, { retry_after_seconds: 42 }) } } }),
          405: methodNotAllowedExample('GET, HEAD', 'POST'),
        },
      ),
      ...(presentsToken && { security: [{ metricsToken: [] }] }),
    },
    // Before anything is read: series name routes, partitions and cache sizes.
    onRequest: async (request) => {
      if (!presentsToken) return;
      const verdict = await judgeToken(request, bearerOf(request), presentsToken, throttle);
      if (verdict === 'right') return;
      if (typeof verdict === 'object') throw tooManyRequests(verdict.refusedFor);
      throw new ApiError(401, 'UNAUTHORIZED', UNAUTHORIZED_MESSAGE, {}, { 'www-authenticate': 'Bearer realm="metrics"' });
    },
  }, async (_request, reply) => {
    await refresh();
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
});
