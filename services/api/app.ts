import { readFileSync } from 'node:fs';
import { maxHeaderSize } from 'node:http';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { OpenRequests, originForm, type RefusedRequest } from '../../platform/http/client-errors.js';
import type { ApiError } from '../../platform/http/errors.js';
import { connectionOptions, handleConnections } from '../../platform/http/connection-handling.js';
import { jsonBodies } from '../../platform/http/json-body.js';
import { requestForLog } from '../../platform/http/loggable-url.js';
import { errorHandling, methodsAt, renderError } from '../../platform/http/error-handler.js';
import { answeringOutsideRoutes, onAnswered } from '../../platform/http/answered-requests.js';
import { httpMetrics, metricsTokenThrottle } from '../../platform/http/metrics-plugin.js';
import { reportRefusals } from '../../platform/http/refusal-report.js';
import { requestGuards } from '../../platform/http/request-guards.js';
import type { Runtime } from '../../platform/runtime.js';
import { commandExecutor, type CommandExecutor } from '../admin/command-executor.js';
import { replayJobs, type ReplayJobs } from '../replay/jobs.js';
import type { JobFollowers } from '../admin/job-followers.js';
import { openApiDocument } from './openapi/plugin.js';
import { TAG } from './openapi/tags.js';
import { openPostbackRefusals, type PostbackRefusals } from './postback-refusals.js';
import { adminRoutes } from './routes/admin/index.js';
import { OPERATOR_PAGES_PREFIX, sendUndecodablePathPage } from './routes/admin/error-page.js';
import { adminPages } from './routes/admin/pages.js';
import { adminSessions } from './routes/admin/session.js';
import { adminTokenThrottle } from './routes/admin/token-throttle.js';
import { healthRoutes } from './routes/health/index.js';
import { isUnderLinkPath, LINK_HEADERS, linkRoutePrefix, linkRoutes } from './routes/links/index.js';
import { locationRoutes } from './routes/locations/index.js';
import { queryRoutes } from './routes/offers/query.js';
import { instancesRoute } from './routes/offers/instances.js';
import { infoRoute } from './routes/offers/info.js';
import { postbackRoutes } from './routes/postbacks/index.js';
import { keptParserRefusals } from './routes/postbacks/parser-refusal.js';
import { POSTBACK_PATH_PREFIX, refuseUndecodablePath } from './routes/postbacks/undecodable-path.js';
import { NO_SNIFF } from '../../platform/http/no-sniff.js';
import { routeRefusalShapes } from './refusal-shapes.js';

const SERVICE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface AppOptions {
  runtime: Runtime;
  logger?: boolean | { level: string };
  /** Runs the admin API's commands; by default without waiting for read models (nothing projects in-process). */
  commands?: CommandExecutor;
  /** Runs the admin API's replays; shared with the owner socket so one process runs one at a time. */
  replays?: ReplayJobs;
  /** Who follows those replays, for the shutdown (services/admin/job-followers.ts). */
  followers?: JobFollowers;
  /** Where postbacks refused before the log are kept for the operator page; by default from the configuration. */
  postbackRefusals?: PostbackRefusals;
  /** Readiness checks besides the backends' (the inline projectors'). */
  alsoReady?: Record<string, () => Promise<unknown>>;
}

/** Wires the API: shared plugins first, then the route plugins (folder name = URL prefix). */
export async function buildApp({ runtime, logger = false, commands, replays, followers, postbackRefusals, alsoReady }: AppOptions): Promise<FastifyInstance> {
  const refusals = postbackRefusals ?? openPostbackRefusals(runtime);
  const linkPrefix = linkRoutePrefix(runtime.config.linkBase);
  const parserRefusals = keptParserRefusals(refusals);
  const routeShapes = routeRefusalShapes(linkPrefix);
  const adminToken = runtime.config.adminToken;
  // The operator pages' sessions (only with ADMIN_TOKEN), also read for the pages' addresses the router cannot decode.
  const sessions = adminToken ? adminSessions(adminToken) : undefined;
  // The app itself, once built: a request the parser refuses for its method is answered from its routes.
  let routes: FastifyInstance | undefined;
  const connectionRefusals = {
    openRequests: new OpenRequests(),
    shapeFor: (request: RefusedRequest, error: ApiError) => parserRefusals(request, error) ?? routeShapes(request, error),
    allowedAt: (path: string) => methodsAt(routes!, path),
    refused: reportRefusals(runtime.metrics, () => routes?.log),
  };
  const app = Fastify({
    // A credential put in a query string by mistake never reaches the access log.
    logger: typeof logger === 'object' ? { ...logger, serializers: { req: requestForLog([runtime.config.adminToken, runtime.config.metricsToken]) } } : logger,
    // One access line a request (accessLog below), not Fastify's two: half the log's volume.
    logController: new LogController({ disableRequestLogging: true }),
    // Client addresses come from the socket, unless it is a proxy listed in TRUSTED_PROXIES: then
    // from its X-Forwarded-For (Fastify walks it with proxy-addr, stopping at the first address
    // no trusted proxy added, so a header forged by anyone else is never believed).
    trustProxy: runtime.config.trustedProxies.length > 0 ? runtime.config.trustedProxies : false,
    // URLs the router cannot even parse (bad percent-encoding, an overlong path segment) answer
    // in the envelope too, not in Fastify's own error shape.
    // A postback path is refused in the postback envelope, as its routes refuse.
    // An operator page's path is answered with the pages' HTML error page (a browser followed it).
    // A link path is answered with the link origin's headers (never cached), as its routes answer.
    frameworkErrors: (error, request, reply) => {
      // Logged and counted as every answer is: such a request runs no hook (so not the one adding NO_SNIFF either).
      answeringOutsideRoutes(routes!, request, reply);
      reply.headers(NO_SNIFF);
      // The path, also of a request target in absolute form (`http://host/v1/postback/%zz`).
      const path = originForm(request.url);
      if (error.code === 'FST_ERR_BAD_URL' && path.startsWith(POSTBACK_PATH_PREFIX)) return refuseUndecodablePath(request, reply, refusals);
      if (error.code === 'FST_ERR_BAD_URL' && sessions && path.startsWith(OPERATOR_PAGES_PREFIX)) return sendUndecodablePathPage(error, request, reply, sessions);
      if (isUnderLinkPath(linkPrefix, path)) reply.headers(LINK_HEADERS);
      return renderError(error, request, reply);
    },
    // What Node refuses before a route runs answers in the envelope too, on a postback path in the
    // postback envelope; a request that does not arrive in REQUEST_TIMEOUT_MS is a 408.
    ...connectionOptions(runtime.config.requestTimeoutMs, connectionRefusals),
    // A path parameter may be as long as any request line the server accepts, so a long location
    // id in the path is treated like the same id in a query parameter (an unknown id, 404).
    routerOptions: { maxParamLength: maxHeaderSize },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  routes = app;
  handleConnections(app, connectionRefusals);
  if (logger) accessLog(app);

  await app.register(errorHandling);
  await app.register(jsonBodies);
  await app.register(requestGuards);
  // Before every route: the document is collected from the routes as they are added.
  await app.register(openApiDocument, { version: SERVICE_VERSION });
  await app.register(httpMetrics, { metrics: runtime.metrics, tags: [TAG.health], token: runtime.config.metricsToken, throttle: metricsTokenThrottle(runtime) });
  await app.register(healthRoutes, { runtime, ...(alsoReady && { alsoReady }) });
  await app.register(locationRoutes, { runtime, prefix: '/v1/locations' });
  await app.register(linkRoutes, { runtime, prefix: linkPrefix });
  await app.register(queryRoutes, { runtime, prefix: '/v1/offers' });
  await app.register(instancesRoute, { runtime, prefix: '/v1/offers' });
  await app.register(infoRoute, { runtime, prefix: '/v1/offers' });
  app.addHook('onClose', () => refusals.close());
  await app.register(postbackRoutes, { runtime, refusals, prefix: '/v1/postback' });
  if (adminToken && sessions) {
    const throttle = adminTokenThrottle(runtime);
    await app.register(adminRoutes, {
      token: adminToken,
      throttle,
      commands: commands ?? commandExecutor(runtime, { projections: [] }),
      replays: replays ?? replayJobs(runtime),
      followers,
      prefix: '/admin',
    });
    await app.register(adminPages, { runtime, token: adminToken, sessions, refusals, throttle, prefix: '/admin' });
  }
  return app;
}

/** One line a request once it is answered (or abandoned by its client): what, for whom, how it went, how long it took. */
function accessLog(app: FastifyInstance) {
  onAnswered(app, (request, reply, elapsedMs) => {
    request.log.info({ req: request, res: reply, responseTime: elapsedMs }, 'request completed');
  });
  app.addHook('onRequestAbort', async (request) => {
    request.log.info({ req: request }, 'request aborted by the client');
  });
}
