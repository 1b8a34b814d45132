import type { ServiceProcess } from './child-process.js';
import type { Load } from './load.js';
import type { PrivateRedis } from './private-redis.js';
import { waitFor } from './wait-for.js';

/** Each backend's state as the API's readiness route reports it ('ok' or 'unavailable: …'). */
export async function readiness(url: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
  const body = (await response.json()) as { data: { backends?: Record<string, string> }; extra: { backends?: Record<string, string> } };
  return body.data.backends ?? body.extra.backends ?? {};
}

/**
 * Faults injected one after another into a running load: each is done once the load has
 * completed `recovered` more operations (the service works again on whatever the fault left
 * behind). A fault that does not recover fails with the services' recent output; `felt` records
 * per fault the failed attempts and the time until recovery, for the test's report.
 */
export function faultSteps(load: Load, services: () => Record<string, ServiceProcess>, recovered = 10) {
  const felt: Record<string, { failedAttempts: number; ms: number }> = {};
  async function fault(name: string, inject: () => Promise<void>) {
    const failedBefore = load.failedAttempts();
    const started = Date.now();
    try {
      await inject();
      await load.moreSucceeded(recovered);
    } catch (error) {
      const outputs = Object.entries(services()).map(([service, process]) => `${service} output:\n${process.output().slice(-3000)}`);
      throw new Error(`${name}: ${(error as Error).message}\n${outputs.join('\n')}`);
    }
    felt[name] = { failedAttempts: load.failedAttempts() - failedBefore, ms: Date.now() - started };
  }
  return { fault, felt };
}

/**
 * A Redis outage the API must notice (its readiness names Redis down) and work through: `served`
 * more operations complete without Redis before it is started again and the API reconnects.
 */
export async function redisOutage(redis: PrivateRedis, apiUrl: string, load: Load, served: number) {
  await redis.stop();
  await waitFor(async () => (await readiness(apiUrl)).redis?.startsWith('unavailable'), { timeoutMs: 30_000, what: 'readiness to report Redis down' });
  await load.moreSucceeded(served);
  await redis.start();
  await waitFor(async () => (await readiness(apiUrl)).redis === 'ok', { timeoutMs: 30_000, what: 'the API to reconnect to Redis' });
}
