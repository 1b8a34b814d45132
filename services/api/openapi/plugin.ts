import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

/** Where the document and its browsable page are served. */
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PREFIX = '/docs';

/**
 * The service's OpenAPI 3.1 document, generated from the routes' own `schema` (the TypeBox
 * schemas that validate and serialize them, so it cannot drift from what the routes do), and a
 * Swagger UI page served from the package's files (it renders offline: no CDN). Must be registered
 * before the routes: it collects them as they are added. Routes with `schema.hide` (admin, bench)
 * stay out of the document.
 */
export const openApiDocument = fp(async (app: FastifyInstance, { version }: { version: string }) => {
  await app.register(swagger, {
    mode: 'dynamic',
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'offer-ledger',
        version,
        description: 'Offer distribution: location registry, offer query and served instances, offer info, tracked links, partner postbacks, health. Every JSON answer uses the envelope {code, message, data, extra}.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'an application API key (Authorization: Bearer …)' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: DOCS_PREFIX, staticCSP: true });
  app.get(OPENAPI_PATH, { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  );
});
