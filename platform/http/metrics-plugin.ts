import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from '../metrics/metrics.js';

/** Records one latency observation per response, labelled by the route pattern (not the raw URL). */
export const httpMetrics = fp(async (app: FastifyInstance, options: { metrics: Metrics }) => {
  const { metrics } = options;
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
      response: { 200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } } },
    },
  }, async (_request, reply) => {
    // A failing refresh must not hide the other series; the stale value stays.
    await Promise.allSettled(metrics.beforeScrape.map((refresh) => refresh()));
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
});
