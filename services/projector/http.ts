import Fastify, { type FastifyInstance } from 'fastify';
import { errorHandling } from '../../platform/http/error-handler.js';
import { listenOrRefuse } from '../../platform/http/listen.js';
import { httpMetrics } from '../../platform/http/metrics-plugin.js';
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
  const app = Fastify({ logger: false });
  await app.register(errorHandling);
  await app.register(httpMetrics, { metrics: runtime.metrics, token: runtime.config.metricsToken });
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
