import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { success } from '../../../../platform/http/envelope.js';
import { tooManyRequests } from '../../../../platform/http/errors.js';
import type { Runtime } from '../../../../platform/runtime.js';
import { parseCatalog, type LocationQuery } from './catalog-param.js';
import * as full from './full.js';
import * as legacy from './legacy.js';

/**
 * The three public location routes. Each parses `catalog` and hands the raw query to the
 * catalog's own handler, which validates what that catalog accepts and rejects the rest.
 */
export async function locationRoutes(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  await app.register(rateLimit, {
    max: runtime.config.locationRateLimit,
    timeWindow: 60_000,
    // Shared across API processes when Redis is configured; in-process otherwise. Keys carry the
    // environment's prefix (TOPIC_PREFIX), so environments sharing one Redis keep separate counts.
    redis: runtime.redis,
    nameSpace: `${runtime.config.topicPrefix}ratelimit:locations:`,
    skipOnError: true,
    errorResponseBuilder: (_request, context) => tooManyRequests(Math.max(1, Math.ceil(context.ttl / 1000))),
  });

  const context = { db: runtime.db };

  app.get('/search', async (request) => {
    const query = request.query as LocationQuery;
    const result = parseCatalog(query) === 'FULL' ? await full.search(context, query) : await legacy.search(context, query);
    return success(result.data, result.extra);
  });

  app.get('/resolve', async (request) => {
    const query = request.query as LocationQuery;
    const result = parseCatalog(query) === 'FULL' ? await full.resolve(context, query) : await legacy.resolve(context, query);
    return success(result.data, result.extra);
  });

  app.get('/:location_id', async (request) => {
    const { location_id: locationId } = request.params as { location_id: string };
    const query = request.query as LocationQuery;
    const result =
      parseCatalog(query) === 'FULL' ? await full.lookup(context, locationId, query) : await legacy.lookup(context, locationId, query);
    return success(result.data, result.extra);
  });
}
