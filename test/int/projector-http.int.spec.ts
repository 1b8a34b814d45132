import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { testEnvironment } from '../support/app.js';
import { catalogEvents } from '../support/catalog-events.js';
import { startServiceProcess, type ServiceProcess } from '../support/child-process.js';
import { createTestDatabase, withoutTable, type TestDatabase } from '../support/database.js';
import { startApi, startProjector } from '../support/service-processes.js';
import { rawHttp, type RawResponse } from '../support/raw-http.js';
import { freePort } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A projector process with PROJECTOR_PORT answers /healthz, /readyz and /metrics: ready while its
 * backends answer and every projection applies the log, 503 naming the projection while one
 * fails (its read model's table taken away) or stalls (its table locked), ready again once it applies; a port another process
 * holds stops the start before any projection joins the log (exit 4, naming PROJECTOR_PORT).
 */
describe('the projector process over HTTP (PROJECTOR_PORT, on Kafka)', () => {
  let database: TestDatabase;
  let writer: Runtime;
  let projector: ServiceProcess;
  let env: Record<string, string>;
  let base: string;

  const readiness = async () => {
    const response = await fetch(`${base}/readyz`);
    return { status: response.status, body: (await response.json()) as { code: string; data: { backends?: Record<string, string> }; extra: { backends?: Record<string, string> } } };
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = { ...testEnvironment(database, `projhttp${randomBytes(4).toString('hex')}.`, { eventLog: 'kafka' }), PROJECTOR_PORT: String(port), HOST: '127.0.0.1' };
    writer = await openRuntime(loadConfig(env));
    // REDIS_URL names a port nothing listens on: a projector never uses Redis, so it starts and is ready without it.
    projector = await startProjector({ ...env, REDIS_URL: 'redis://127.0.0.1:1' });
  }, 120_000);
  afterAll(async () => {
    await projector?.stop('SIGTERM');
    await writer?.close();
    await database?.drop();
  });

  it('is ready with its backends and projections, and shows its lag on /metrics', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await writer.eventLog.append('catalog', catalogEvents(20));
    const ready = await waitFor(async () => {
      const answer = await readiness();
      return answer.status === 200 && answer;
    }, { what: 'the projector to be ready' });
    expect(ready.body.data.backends).toEqual({ database: 'ok', event_log: 'ok', projections: 'ok', schema_registry: 'ok' });
    const metrics = await waitFor(async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return /events_consumed_total\{[^}]*topic="catalog"[^}]*\} 20/.test(text) && text;
    }, { what: 'the projector to count the 20 events consumed' });
    expect(metrics).toMatch(/projector_lag_events\{projection="catalog-entries",topic="catalog",partition="\d+"\} 0/);
  });

  it('answers 503 naming the projection that fails, and is ready again once it applies', async () => {
    await withoutTable(database.db, 'catalog_entries', async () => {
      await writer.eventLog.append('catalog', catalogEvents(5, 100));
      const failing = await waitFor(async () => {
        const answer = await readiness();
        return answer.status === 503 && answer;
      }, { what: 'the projector to say a projection fails' });
      expect(failing.body.code).toBe('NOT_READY');
      expect(failing.body.extra.backends).toMatchObject({ database: 'ok', event_log: 'ok' });
      expect(failing.body.extra.backends!.projections).toMatch(/^unavailable: failing, retried: catalog-entries \(.*catalog_entries/);
    });
    await waitFor(async () => (await readiness()).status === 200, { what: 'the projector to be ready again' });
  });

  it('answers 503 naming a projection that has events to apply and applied none for 15 s (its table locked: no error, just a wait)', async () => {
    await database.db.transaction(async (tx) => {
      await tx.query('LOCK TABLE catalog_entries IN ACCESS EXCLUSIVE MODE');
      await writer.eventLog.append('catalog', catalogEvents(3, 200));
      const stalled = await waitFor(async () => {
        const answer = await readiness();
        return answer.status === 503 && answer;
      }, { what: 'the projector to say a projection is stalled', timeoutMs: 60_000, intervalMs: 500 });
      expect(stalled.body.extra.backends!.projections).toMatch(/^unavailable: stalled: catalog-entries has \d+ events to apply and applied none for 1\d s/);
    });
    await waitFor(async () => (await readiness()).status === 200, { what: 'the projector to be ready again' });
  }, 90_000);

  it('answers what Node refuses in the envelope, as the API does: a malformed head, no Host, CONNECT, a client that half-closes', async () => {
    const port = Number(new URL(base).port);
    const expectEnvelope = (response: RawResponse, status: number, code: string) => {
      expect(response.status, response.body).toBe(status);
      expect(JSON.parse(response.body)).toMatchObject({ code, data: {}, extra: {} });
    };
    expectEnvelope(await rawHttp(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n'), 400, 'BAD_REQUEST');
    expectEnvelope(await rawHttp(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'BAD_REQUEST');
    expectEnvelope(await rawHttp(port, 'CONNECT /readyz HTTP/1.1\r\nHost: x\r\n\r\n'), 405, '405');
    // Ends its side right after the request: the answer, worked out after the end was read, still comes.
    const halfClosed = await new Promise<RawResponse>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n'));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [head = '', body = ''] = text.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), headers: {}, body });
      });
    });
    expect([200, 503]).toContain(halfClosed.status);
    expect(JSON.parse(halfClosed.body)).toHaveProperty('code');
  });

  it('refuses to start on a port another process holds, before joining the log', async () => {
    const second = startServiceProcess('services/projector/main.ts', env);
    expect(await second.exited).toBe(4);
    expect(second.output()).toContain(`error: cannot start the projector: PROJECTOR_PORT: ${new URL(base).port} on 127.0.0.1 is taken by another process`);
    expect(second.output()).not.toContain('projector started');
  });
});

describe("the API's readiness of the projectors it runs", () => {
  let database: TestDatabase;
  afterAll(async () => database?.drop());

  it('includes projections with PROJECTORS=inline, and not with separate (they are other processes)', async () => {
    database = await createTestDatabase();
    const env = testEnvironment(database, `apiready${randomBytes(4).toString('hex')}.`);
    for (const [projectors, expected] of [['inline', 'ok'], ['separate', undefined]] as const) {
      const api = await startApi({ ...env, PROJECTORS: projectors });
      try {
        const backends = await waitFor(async () => {
          const response = await fetch(`${api.url}/readyz`);
          const body = (await response.json()) as { data: { backends?: Record<string, string> } };
          return response.status === 200 && body.data.backends;
        }, { what: `the API (${projectors}) to be ready` });
        expect(backends.projections).toBe(expected);
        expect(backends.database).toBe('ok');
      } finally {
        await api.stop('SIGTERM');
      }
    }
  }, 180_000);
});
