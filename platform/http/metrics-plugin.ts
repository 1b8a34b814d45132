import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from '../metrics/metrics.js';

/** An excerpt of a scrape, the document's example of GET /metrics. */
const SCRAPE_EXAMPLE = [
  '# HELP http_request_duration_seconds HTTP request latency by route and status',
  '# TYPE http_request_duration_seconds histogram',
  'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v1/locations/search",status="200"} 41',
  'http_request_duration_seconds_count{method="GET",route="/v1/locations/search",status="200"} 42',
  '',
].join('\n');

/**
 * Records one latency observation per response, labelled by the route pattern (not the raw URL),
 * and serves the registry as GET /metrics (grouped in the document under `tags`).
 */
export const httpMetrics = fp(async (app: FastifyInstance, options: { metrics: Metrics; tags?: string[] }) => {
  const { metrics, tags } = options;
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  app.get('/metrics', {
    logLevel: 'warn',
    schema: {
      summary: 'Prometheus metrics',
      ...(tags ? { tags } : {}),
      response: {
        200: {
          description: 'Prometheus text exposition format',
          content: { 'text/plain': { schema: { type: 'string' }, examples: { scrape: { summary: 'an excerpt', value: SCRAPE_EXAMPLE } } } },
        },
      },
    },
  }, async (_request, reply) => {
    // A failing refresh must not hide the other series; the stale value stays.
    await Promise.allSettled(metrics.beforeScrape.map((refresh) => refresh()));
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
});
