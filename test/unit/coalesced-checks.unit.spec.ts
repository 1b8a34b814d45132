import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { coalesced } from '../../platform/async/coalesced.js';
import { httpMetrics } from '../../platform/http/metrics-plugin.js';
import { createMetrics } from '../../platform/metrics/metrics.js';
import type { Runtime } from '../../platform/runtime.js';
import { healthRoutes } from '../../services/api/routes/health/index.js';

/** An app whose handlers have been entered by `count` requests once the returned check passes. */
function counted(app: ReturnType<typeof Fastify>) {
  let entered = 0;
  // The handler is called in the same turn as the last preHandler hook ends.
  app.addHook('preHandler', async () => {
    entered += 1;
  });
  return (count: number) => vi.waitFor(() => expect(entered).toBe(count));
}

/** A backend call that answers when released; counts how often it was asked. */
function heldCall() {
  let release!: () => void;
  let released = new Promise<void>((resolve) => { release = resolve; });
  const call = {
    asked: 0,
    run: async () => {
      call.asked += 1;
      await released;
    },
    release: () => {
      release();
      released = new Promise<void>((resolve) => { release = resolve; });
    },
  };
  return call;
}

describe('coalesced', () => {
  it('shares the run under way with every call made meanwhile, and starts afresh after it', async () => {
    const held = heldCall();
    const shared = coalesced(held.run);
    const together = [shared(), shared(), shared()];
    expect(held.asked).toBe(1);
    held.release();
    await Promise.all(together);
    const after = shared();
    expect(held.asked).toBe(2);
    held.release();
    await after;
  });

  it('gives a failed run to its callers, and the next call runs again', async () => {
    let runs = 0;
    const shared = coalesced(async () => {
      runs += 1;
      if (runs === 1) throw new Error('backend down');
      return runs;
    });
    await expect(Promise.all([shared(), shared()])).rejects.toThrow('backend down');
    expect(await shared()).toBe(2);
  });
});

describe('a flood of scrapes and readiness checks', () => {
  it('costs the backends one refresh of the metrics at a time, however many scrapes arrive together', async () => {
    const metrics = createMetrics();
    const lag = heldCall();
    metrics.beforeScrape.push(lag.run);
    const app = Fastify();
    const entered = counted(app);
    await app.register(httpMetrics, { metrics });
    const scrapes = Array.from({ length: 20 }, () => app.inject('/metrics'));
    await entered(20);
    expect(lag.asked).toBe(1);
    lag.release();
    expect((await Promise.all(scrapes)).map((scrape) => scrape.statusCode)).toEqual(Array(20).fill(200));
    const next = app.inject('/metrics');
    await entered(21);
    expect(lag.asked).toBe(2);
    lag.release();
    expect((await next).statusCode).toBe(200);
    await app.close();
  });

  it('costs the backends one round of readiness checks at a time', async () => {
    const database = heldCall();
    const log = heldCall();
    const runtime = { db: { query: database.run }, eventLog: { ping: log.run }, config: {} } as unknown as Runtime;
    const app = Fastify();
    const entered = counted(app);
    await app.register(healthRoutes, { runtime });
    const checks = Array.from({ length: 20 }, () => app.inject('/readyz'));
    await entered(20);
    expect([database.asked, log.asked]).toEqual([1, 1]);
    database.release();
    log.release();
    const answers = await Promise.all(checks);
    expect(answers.map((answer) => answer.json().data.backends)).toEqual(Array(20).fill({ database: 'ok', event_log: 'ok' }));
    await app.close();
  });
});
