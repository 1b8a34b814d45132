import Fastify, { type FastifyInstance } from 'fastify';
import { OpenRequests } from '../../platform/http/client-errors.js';
import { connectionOptions, handleConnections } from '../../platform/http/connection-handling.js';
import { errorHandling, methodsAt } from '../../platform/http/error-handler.js';
import { listenOrRefuse } from '../../platform/http/listen.js';
import { httpMetrics, metricsTokenThrottle } from '../../platform/http/metrics-plugin.js';
import { reportRefusals } from '../../platform/http/refusal-report.js';
import { requestGuards } from '../../platform/http/request-guards.js';
import type { Runtime } from '../../platform/runtime.js';
import { healthRoutes } from '../api/routes/health/index.js';
import type { ProjectionHealth } from './projection-health.js';

/**
 * The projector process's own HTTP port (PROJECTOR_PORT): /healthz, /readyz and /metrics, so a
 * supervisor can tell a projector that applies the log from one that only runs, and its lag is
 * scraped where it is measured. Ready means its backends answer (the log only as a reader: a
 * projector appends nothing) and no projection is failing.
 */
export async function serveProjectorHttp(runtime: Runtime, health: ProjectionHealth): Promise<FastifyInstance> {
  // Answered as the API's port answers what Node refuses (a malformed head, CONNECT, a stalled
  // request, a client that half-closes): in the envelope, and never a crash or a held connection.
  let routes: FastifyInstance | undefined;
  const refusals = { openRequests: new OpenRequests(), allowedAt: (path: string) => methodsAt(routes!, path), refused: reportRefusals(runtime.metrics, () => undefined) };
  const app = Fastify({ logger: false, ...connectionOptions(runtime.config.requestTimeoutMs, refusals) });
  routes = app;
  handleConnections(app, refusals);
  await app.register(errorHandling);
  await app.register(requestGuards);
  await app.register(httpMetrics, { metrics: runtime.metrics, token: runtime.config.metricsToken, throttle: metricsTokenThrottle(runtime) });
  await app.register(healthRoutes, {
    runtime,
    alsoReady: {
      event_log: () => runtime.eventLog.ping({ appends: false }),
      projections: () => health.check(),
    },
  });
  const { host, projectorPort: port } = runtime.config;
  await listenOrRefuse(app, { host, port }, 'PROJECTOR_PORT', 'choose another port (each projector on a host needs its own), or 0 for none');
  return app;
}
