import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { catalogEvents } from '../support/catalog-events.js';
import type { FastifyInstance } from 'fastify';

describe('API health, metrics and the error envelope (Kafka, Postgres, Redis)', () => {
  let t: TestRuntime & { app: FastifyInstance };
  let projectors: RunningProjectors;

  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'kafka', env: { ADMIN_TOKEN: 'admin-token-for-tests-0123456789' } });
    projectors = await startProjectors(t.runtime);
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  it('answers /healthz and /readyz with every backend it uses', async () => {
    expect((await t.app.inject('/healthz')).json()).toEqual({ code: 'SUCCESS', message: '', data: { status: 'ok' }, extra: {} });
    const ready = await t.app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json().data.backends).toEqual({ database: 'ok', event_log: 'ok', redis: 'ok', schema_registry: 'ok' });
  });

  it('exposes latency, produced and consumed events, and projector lag', async () => {
    await t.runtime.eventLog.append('catalog', catalogEvents(20));
    await t.app.inject('/healthz');
    const metrics = (await t.app.inject('/metrics')).body;
    expect(metrics).toMatch(/http_request_duration_seconds_bucket\{.*route="\/healthz".*\}/);
    expect(metrics).toMatch(/events_produced_total\{topic="catalog",type="offerledger.catalog.CatalogEntryRecorded"\} 16/);
    expect(metrics).toMatch(/projector_lag_events\{projection="catalog-entries",topic="catalog",partition="\d"\} \d+/);
  });

  it('answers unknown routes with the 404 envelope', async () => {
    const response = await t.app.inject('/v1/nothing-here?x=1');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'NOT_FOUND', message: 'no route for GET /v1/nothing-here', data: {}, extra: {} });
  });

  it('answers a body that is not JSON with the 400 envelope, never a 500', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/commands/catalog-entry:record',
      headers: { authorization: 'Bearer admin-token-for-tests-0123456789', 'content-type': 'application/json' },
      payload: '{"entry_id": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'BAD_REQUEST', data: {}, extra: {} });
  });

  it('keeps the admin API closed to anything but the admin token', async () => {
    for (const authorization of [undefined, 'Bearer svc_live_abc', 'Bearer admin-token-for-tests-012345678']) {
      const response = await t.app.inject({ method: 'GET', url: '/admin/commands', headers: authorization ? { authorization } : {} });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED', data: {} });
    }
  });

  it('runs an admin command over HTTP and names the bad field when input is wrong', async () => {
    const headers = { authorization: 'Bearer admin-token-for-tests-0123456789' };
    const before = await t.runtime.eventLog.endOffsets('catalog');
    const bad = await t.app.inject({
      method: 'POST', url: '/admin/commands/catalog-entry:record', headers,
      payload: { entry_id: 'x', name: 'n', amount: '1.5', currency: 'usd' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'BAD_REQUEST', extra: { field: 'currency' } });
    const extra = await t.app.inject({
      method: 'POST', url: '/admin/commands/catalog-entry:record', headers,
      payload: { entry_id: 'x', name: 'n', amount: '1.5', currency: 'USD', colour: 'red' },
    });
    expect(extra.json()).toMatchObject({ code: 'BAD_REQUEST', message: 'colour: is not a known field', extra: { field: 'colour' } });
    expect(await t.runtime.eventLog.endOffsets('catalog')).toEqual(before);

    const good = await t.app.inject({
      method: 'POST', url: '/admin/commands/catalog-entry:record', headers,
      payload: { entry_id: 'x', name: 'n', amount: '1.50', currency: 'USD' },
    });
    expect(good.statusCode).toBe(200);
    expect(good.json().data).toMatchObject({ topic: 'catalog', event_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });
});

describe('readiness of the event log on Kafka', () => {
  let t: TestRuntime & { app: FastifyInstance };
  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'kafka' });
  });
  afterAll(async () => t?.close());

  it('asks the brokers about its own topics: ready while appends are taken, also with a min.insync.replicas above the copies kept (the broker asks for no more)', async () => {
    // The stack's one broker keeps one copy: readiness reads the topic's setting and its in-sync
    // copies (a partition short of them is a unit test: one broker cannot be short of itself).
    const admin = new Kafka({ brokers: inject('stack').kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const topic = `${t.runtime.config.topicPrefix}catalog`;
    const setMinInsync = (value: string) =>
      admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'min.insync.replicas', value }] }] });
    try {
      await setMinInsync('2');
      const ready = await t.app.inject('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json().data.backends.event_log).toBe('ok');
      expect(await t.runtime.eventLog.append('catalog', catalogEvents(1))).toHaveLength(1);
    } finally {
      await setMinInsync('1');
      await admin.disconnect();
    }
  });
});

describe('readiness with a backend down', () => {
  let t: TestRuntime & { app: FastifyInstance };
  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'sql' });
  });
  afterAll(async () => t?.close());

  it('answers 503 NOT_READY naming the backend that does not answer', async () => {
    await t.database.whileRefusing(async () => {
      const response = await t.app.inject('/readyz');
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ code: 'NOT_READY', data: {}, extra: { backends: { database: expect.stringMatching(/^unavailable: /), redis: 'ok' } } });
    });
  });

  it('stays ready without Redis, saying so: every route answers without it (limits count in this process)', async () => {
    t.runtime.redis!.disconnect();
    const response = await t.app.inject('/readyz');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ code: 'SUCCESS', data: { status: 'ready', backends: { database: 'ok', event_log: 'ok' } } });
    expect(response.json().data.backends.redis).toMatch(/^unavailable: .*\(rate limits count in this process meanwhile; a process starting now would stop\)$/);
  });
});

describe('URLs the router cannot parse', () => {
  let t: TestRuntime & { app: FastifyInstance };
  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'sql' });
  });
  afterAll(async () => t?.close());

  it.each(['/v1/locations/%', '/v1/locations/%E0%A4%A'])(
    '%s answers 400 in the envelope',
    async (url) => {
      const response = await t.app.inject(url);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ code: 'BAD_REQUEST', message: expect.any(String), data: {}, extra: {} });
    },
  );
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
  let t: TestRuntime & { app: FastifyInstance };
  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'sql', env: { METRICS_TOKEN } });
  });
  afterAll(async () => t?.close());

  it('answers only the bearer of the token; anyone else gets 401 in the envelope, without a series', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-for-tests-0123456789', `Basic ${METRICS_TOKEN}`, `Bearer ${METRICS_TOKEN}x`]) {
      const refused = await t.app.inject({ url: '/metrics', headers: authorization === undefined ? {} : { authorization } });
      expect(refused.statusCode, authorization).toBe(401);
      expect(refused.json()).toEqual({ code: 'UNAUTHORIZED', message: expect.stringContaining('METRICS_TOKEN'), data: {}, extra: {} });
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(refused.body).not.toContain('http_request_duration_seconds');
    }
    const scraped = await t.app.inject({ url: '/metrics', headers: { authorization: `bearer ${METRICS_TOKEN}` } });
    expect(scraped.statusCode).toBe(200);
    expect(scraped.body).toContain('http_request_duration_seconds');
  });

  it('says so in the API description', async () => {
    const document = (await t.app.inject('/openapi.json')).json();
    expect(document.paths['/metrics'].get.security).toEqual([{ metricsToken: [] }]);
    expect(Object.keys(document.paths['/metrics'].get.responses)).toContain('401');
  });
});
