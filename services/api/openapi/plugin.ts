import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { TAG_DESCRIPTIONS } from './tags.js';

/** Where the document and its browsable page are served. */
const OPENAPI_PATH = '/openapi.json';
const DOCS_PREFIX = '/docs';

/**
 * The docs page's Content-Security-Policy: its own origin only. The package's default policy
 * also allows any https style or font and the swagger.io validator, and asks the browser to
 * upgrade insecure requests, which leaves the page blank when it is served over http under any
 * host name but localhost (every asset is then fetched over https). The hash is the one inline
 * style Swagger UI writes (its logo's SVG).
 */
const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "font-src 'self' data:",
  "frame-ancestors 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  "form-action 'self'",
].join('; ');

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
const camel = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean).map(capitalized).join('');

/** `get` and `/v1/locations/{location_id}` → getV1LocationsByLocationId. */
function operationIdOf(method: string, path: string): string {
  const segments = path.split('/').filter(Boolean).map((segment) => (/^\{.+\}$/.test(segment) ? `By${camel(segment.slice(1, -1))}` : camel(segment)));
  return `${method.toLowerCase()}${segments.join('')}`;
}

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
    // @fastify/swagger marks every body required; a route whose empty POST is a request of its
    // own says so with x-body-optional (Query: no body at all is the request {}).
    // Each operation gets an operationId from its method and path (a client generator names its
    // functions by them): getV1LocationsByLocationId, postV1PostbackByPartnerId, headLByCode.
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const { openapiObject } = document;
      for (const [path, operations] of Object.entries(openapiObject.paths ?? {})) {
        const byMethod = operations as Record<string, { operationId?: string; requestBody?: { required?: boolean }; 'x-body-optional'?: boolean }>;
        for (const [method, shared] of Object.entries(byMethod)) {
          if (typeof shared !== 'object' || shared === null) continue;
          // A copy per method: a route's GET and HEAD share one operation object.
          const operation = { ...shared, operationId: shared.operationId ?? operationIdOf(method, path) };
          byMethod[method] = operation;
          if (!operation['x-body-optional']) continue;
          delete operation['x-body-optional'];
          if (operation.requestBody) operation.requestBody.required = false;
        }
      }
      return openapiObject;
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'offer-ledger',
        version,
        description: 'Offer distribution: location registry, offer query and served instances, offer info, tracked links, partner postbacks, health. Every JSON answer uses the envelope {code, message, data, extra}.',
      },
      tags: Object.entries(TAG_DESCRIPTIONS).map(([name, description]) => ({ name, description })),
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'an application API key (Authorization: Bearer …)' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN: asked for by GET /metrics when the service sets one' },
        },
      },
    },
  });
  await app.register(async (docs) => {
    // The page's script finds the document by appending `json` to its own address, query string
    // and all, so `/docs/?anything` showed no operation: that address goes to the page without it.
    docs.addHook('onRequest', async (request, reply) => {
      const query = request.url.indexOf('?');
      const path = query < 0 ? request.url : request.url.slice(0, query);
      if (query >= 0 && (path === DOCS_PREFIX || path === `${DOCS_PREFIX}/`)) return reply.redirect(`${DOCS_PREFIX}/`, 302);
    });
    await docs.register(swaggerUi, { routePrefix: DOCS_PREFIX, staticCSP: DOCS_CSP });
  });
  // The document is fixed once the routes are registered: written once, and every answer sends
  // the same bytes (serializing its 170 kB per request let a client that asks many times without
  // reading the answers take the process's CPU and memory).
  let document: Buffer | undefined;
  app.get(OPENAPI_PATH, { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send((document ??= Buffer.from(JSON.stringify(app.swagger())))),
  );
});
