import type { FastifyInstance } from 'fastify';
import { failure, success } from '../../../../platform/http/envelope.js';
import type { Runtime } from '../../../../platform/runtime.js';

/** Liveness (the process answers) and readiness (every backend this process uses answers). */
export async function healthRoutes(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  app.get('/healthz', { logLevel: 'warn' }, async () => success({ status: 'ok' }));

  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    const checks: Record<string, () => Promise<unknown>> = {
      database: () => runtime.db.query('SELECT 1'),
      event_log: () => runtime.eventLog.ping(),
    };
    if (runtime.redis) checks.redis = () => runtime.redis!.ping();
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await check();
          return [name, 'ok'] as const;
        } catch (error) {
          return [name, `unavailable: ${(error as Error).message}`] as const;
        }
      }),
    );
    const backends = Object.fromEntries(results);
    if (results.every(([, state]) => state === 'ok')) return success({ status: 'ready', backends });
    return reply.status(503).send(failure('NOT_READY', 'a backend is unavailable', { backends }));
  });
}
