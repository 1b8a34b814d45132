import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../metrics/metrics.js';
import type { ConnectionRefusal } from './client-errors.js';

/**
 * The listener of a server's connection-level refusals: one log line and one count each, as every
 * routed request gets from the access log and the request metric. `log` is read at each refusal
 * (the server's logger exists only once the server is built).
 */
export const reportRefusals =
  (metrics: Metrics, log: () => FastifyBaseLogger | undefined) =>
  (refusal: ConnectionRefusal): void => {
    metrics.httpRefusedBeforeRouting.inc({ status: String(refusal.status), cause: refusal.cause });
    log()?.info({ refusal }, 'request refused before routing');
  };
