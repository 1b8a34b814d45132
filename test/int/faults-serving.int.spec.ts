import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { testEnvironment } from '../support/app.js';
import type { ServiceProcess } from '../support/child-process.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startLoad, type Load } from '../support/load.js';
import { startPrivateKafka, type PrivateKafka } from '../support/private-kafka.js';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.js';
import { readTopic } from '../support/read-topic.js';
import { details, servingAdmin } from '../support/serving-fixtures.js';
import { restartable, startApi, startProjector, type ApiProcess, type Restartable } from '../support/service-processes.js';
import { freePort } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Serving under faults: the API and a separate projector on a private Kafka broker and a private
 * Redis, a steady Query load whose clients retry, and during it a broker restart, a projector
 * SIGKILL, every Postgres session dropped, a Redis outage and an API SIGKILL. Afterwards every
 * card a client was given (a 2xx) is in served_instances, the log holds each instance id once,
 * and the read model holds exactly what the log holds.
 *
 * Every wait below is on a condition: a process that answers or logs it is ready, the load having
 * completed more operations (the service serves again), a readiness answer naming Redis. None is
 * a pause for time to pass.
 */
let kafka: PrivateKafka | undefined;
let redis: PrivateRedis | undefined;
let database: TestDatabase | undefined;
let projector: Restartable<ServiceProcess> | undefined;
let api: Restartable<ApiProcess> | undefined;
let env: Record<string, string>;
let key: string;
let placement: string;

async function withRuntime<T>(fn: (runtime: Runtime) => Promise<T>): Promise<T> {
  const runtime = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
  }
}

beforeAll(async () => {
  [kafka, redis, database] = await Promise.all([startPrivateKafka(), startPrivateRedis(), createTestDatabase()]);
  env = testEnvironment(database, `t${randomBytes(4).toString('hex')}.`, {
    eventLog: 'kafka',
    env: {
      KAFKA_BROKERS: kafka.brokers.join(','),
      REDIS_URL: redis.url,
      PROJECTORS: 'separate',
      // Errors only: a failing backend shows in the output; request lines would flood it.
      LOG_LEVEL: 'warn',
      // Fixed, so clients reach the API at the same address after it is restarted.
      PORT: String(await freePort()),
    },
  });
  projector = await restartable(() => startProjector(env));
  // The admin commands wait for the projector process to apply their events.
  ({ key, placement } = await withRuntime(async (runtime) => {
    const admin = servingAdmin(runtime);
    const application = await admin.application(await admin.developer());
    const issued = await admin.key(application);
    const partner = await admin.partner();
    for (const category of ['games', 'books']) {
      await admin.offer({ partner_id: partner, details: details(category), destination_url: `https://merchant.example/${category}` });
    }
    return { key: issued.key, placement: await admin.placement(application) };
  }));
  api = await restartable(() => startApi(env));
}, 240_000);

afterAll(async () => {
  await api?.kill('SIGKILL');
  await projector?.kill('SIGKILL');
  await kafka?.close();
  await redis?.close();
  await database?.drop();
});

const alive = (service: ServiceProcess) => service.child.exitCode === null && service.child.signalCode === null;

/** Each backend's state as the API's readiness route reports it ('ok' or 'unavailable: …'). */
async function readiness(url: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) });
  const body = (await response.json()) as { data: { backends?: Record<string, string> }; extra: { backends?: Record<string, string> } };
  return body.data.backends ?? body.extra.backends ?? {};
}

describe('serving under faults', () => {
  it('every card given out through a broker restart, a projector crash, dropped sessions, a Redis outage and an API crash is in the log and the read model once', async () => {
    const url = api!.current.url;
    const load: Load = startLoad({
      clients: 4,
      request: () => ({
        url: `${url}/v1/offers/query`,
        init: {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ placement_id: placement, limit: 2 }),
        },
      }),
    });
    const felt: Record<string, { failedAttempts: number; ms: number }> = {};
    const fault = async (name: string, inject: () => Promise<void>) => {
      const failedBefore = load.failedAttempts();
      const started = Date.now();
      try {
        await inject();
        // Recovered: clients are served again, on whatever the fault left behind.
        await load.moreSucceeded(10);
      } catch (error) {
        const tail = (service: ServiceProcess) => service.output().slice(-3000);
        throw new Error(`${name}: ${(error as Error).message}\nAPI output:\n${tail(api!.current)}\nprojector output:\n${tail(projector!.current)}`);
      }
      felt[name] = { failedAttempts: load.failedAttempts() - failedBefore, ms: Date.now() - started };
    };

    // Warm: the service serves before anything breaks.
    await load.moreSucceeded(10);
    const firstProjector = projector!.current.child.pid;
    const firstApi = api!.current.child.pid;

    await fault('kafka restart', async () => {
      await kafka!.stop();
      await kafka!.start();
    });
    await fault('projector SIGKILL', async () => {
      await projector!.kill('SIGKILL');
      await projector!.start();
    });
    await fault('postgres sessions dropped', async () => {
      expect(await database!.dropConnections()).toBeGreaterThan(0);
    });
    await fault('redis outage', async () => {
      await redis!.stop();
      // The API notices (its readiness names Redis) and still serves: Query does not need Redis.
      await waitFor(async () => (await readiness(url)).redis?.startsWith('unavailable'), { timeoutMs: 30_000, what: 'readiness to report Redis down' });
      await load.moreSucceeded(10);
      await redis!.start();
      await waitFor(async () => (await readiness(url)).redis === 'ok', { timeoutMs: 30_000, what: 'the API to reconnect to Redis' });
    });
    // Neither the API nor the first projector's successor died of any of the faults above.
    expect(alive(api!.current)).toBe(true);
    expect(api!.current.child.pid).toBe(firstApi);
    expect(projector!.current.child.pid).not.toBe(firstProjector);
    expect(alive(projector!.current)).toBe(true);
    await fault('api SIGKILL', async () => {
      await api!.kill('SIGKILL');
      await api!.start();
    });

    const operations = await load.stop();
    // Every operation ended in a 2xx: no client gave up and nothing was refused.
    expect(operations.filter((op) => op.gaveUp || op.status !== 200).map((op) => ({ index: op.index, attempts: op.attempts }))).toEqual([]);
    const cards = operations.flatMap((op) => (op.body as { data: { cards: { offer_instance_id: string }[] } }).data.cards);
    const served = new Set(cards.map((card) => card.offer_instance_id));
    expect(cards).toHaveLength(operations.length * 2);
    expect(served.size).toBe(cards.length); // no card handed out twice

    await withRuntime(async (runtime) => {
      // The projector has applied everything the log holds, so the read model can be compared to it.
      await awaitCaughtUp(runtime, [servesProjection], 60_000);
      const ends = await runtime.eventLog.endOffsets('serves');
      const total = ends.reduce((sum, end) => sum + Number(end.offset), 0);
      const logged = await readTopic(runtime.eventLog, 'serves', (events) => events.length >= total);
      const loggedIds = logged.map((event) => (event.value as { offer_instance_id: string }).offer_instance_id);
      const seen = new Set<string>();
      expect(loggedIds.filter((id) => seen.has(id) || !seen.add(id))).toEqual([]); // no instance id appended twice
      const { rows } = await runtime.db.query<{ offer_instance_id: string }>('SELECT offer_instance_id FROM served_instances');
      const stored = rows.map((row) => row.offer_instance_id);
      // The read model holds exactly the log (a 503'd request's serves included), each id once.
      expect(stored.sort()).toEqual([...seen].sort());
      expect([...served].filter((id) => !seen.has(id))).toEqual([]);
    });
    process.stderr.write(`[faults-serving] ${operations.length} operations, ${served.size} cards; per fault until recovered: ${JSON.stringify(felt)}\n`);
  }, 300_000);
});
