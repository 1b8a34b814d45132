import type { FastifyInstance, FastifyReply } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { perClientRateLimit } from '../../client-rate-limit.js';
import { badRequest } from '../../../../platform/http/errors.js';
import { decodeFormPairs, rawQueryOf } from '../../../../platform/http/form-pairs.js';
import type { Runtime } from '../../../../platform/runtime.js';
import { documentOnlyValidation } from '../../../../platform/http/envelope-schema.js';
import { lookupSchema, resolveSchema, searchSchema } from './schema.js';
import { parseCatalog, type LocationQuery } from './catalog-param.js';
import * as full from './full.js';
import * as legacy from './legacy.js';

/** The location routes' rate limit (exported so the benchmark can put its baseline routes under the same one). */
export function locationRateLimit(runtime: Runtime) {
  return perClientRateLimit(runtime, 'locations', runtime.config.locationRateLimit);
}

/**
 * The three public location routes. Each parses `catalog` and hands the raw query to the
 * catalog's own handler, which validates what that catalog accepts and rejects the rest.
 */
export async function locationRoutes(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  await app.register(rateLimit, locationRateLimit(runtime));
  // The framework keeps a value whose percent-encoding is not UTF-8 as it came (`q=%zz` would be
  // searched for literally): a parameter that cannot be read is refused, as on the offer routes.
  app.addHook('onRequest', async (request) => {
    decodeFormPairs(rawQueryOf(request.url), (part) =>
      badRequest(`the query string is not valid percent-encoding (at ${JSON.stringify(part.slice(0, 120))}); encode each value as UTF-8, then percent-encode it`));
  });

  const context = { db: runtime.db };
  // Request schemas only document the parameters: each catalog's handler checks them itself.
  // Handlers render the success envelope as JSON text themselves (mostly from per-location
  // fragments rendered once), so it is sent as is.
  const json = (reply: FastifyReply, body: string | Buffer) => reply.type('application/json; charset=utf-8').send(body);

  app.get('/search', { schema: searchSchema, ...documentOnlyValidation }, async (request, reply) => {
    const query = request.query as LocationQuery;
    return json(reply, parseCatalog(query) === 'FULL' ? await full.search(context, query) : await legacy.search(context, query));
  });

  app.get('/resolve', { schema: resolveSchema, ...documentOnlyValidation }, async (request, reply) => {
    const query = request.query as LocationQuery;
    return json(reply, parseCatalog(query) === 'FULL' ? await full.resolve(context, query) : await legacy.resolve(context, query));
  });

  app.get('/:location_id', { schema: lookupSchema, ...documentOnlyValidation }, async (request, reply) => {
    const { location_id: locationId } = request.params as { location_id: string };
    const query = request.query as LocationQuery;
    return json(reply, parseCatalog(query) === 'FULL' ? await full.lookup(context, locationId, query) : await legacy.lookup(context, locationId, query));
  });
}
