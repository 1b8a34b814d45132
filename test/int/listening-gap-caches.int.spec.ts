import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { cuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { commandRunner, DESTINATION, DETAILS, type RunCommand } from '../support/instance-world.js';
import { nextNotificationGap } from '../support/notification-gap.js';

/**
 * An API process beside a projector process (PROJECTORS=separate) hears commits only through its
 * listening session. While that session is down, a commit goes unheard: what the process reads
 * then must not be kept, or a key revoked or an offer paused meanwhile would be answered from
 * memory for as long as the session stays down.
 */
describe('an API process whose listening session is down', () => {
  let writer: TestRuntime;
  let projectors: RunningProjectors | undefined;
  let run: RunCommand;
  let proxy: CuttingProxy;
  let api: Runtime | undefined;
  let app: FastifyInstance | undefined;

  beforeAll(async () => {
    writer = await createTestRuntime({ eventLog: 'kafka' });
    projectors = await startProjectors(writer.runtime);
    run = commandRunner(writer.runtime);
    const url = new URL(writer.database.url);
    proxy = await cuttingProxy({ host: url.hostname, port: Number(url.port) });
    url.port = String(proxy.port);
    api = await openRuntime(loadConfig({ ...testEnvironment(writer.database, writer.topicPrefix, { eventLog: 'kafka' }), DATABASE_URL: url.toString(), PROJECTORS: 'separate' }));
    app = await buildApp({ runtime: api });
  });
  afterAll(async () => {
    proxy?.heal();
    await app?.close();
    await api?.close();
    await proxy?.close();
    await projectors?.stop();
    await writer?.close();
  });

  it('answers a key revoked and an offer paused meanwhile as they are now, never as it read them before', async () => {
    const { partner_id } = await run('partner:configure', { name: 'Gap partner' });
    const offer = { partner_id, kind: 'local', status: 'active', details: DETAILS, destination_url: DESTINATION };
    const { offer_id } = await run('offer:upsert', offer);
    const { developer_id } = await run('developer:register', { name: 'Gap dev', email: `gap-${Date.now()}@caches.test` });
    const { application_id } = await run('application:register', { developer_id, name: 'gap', status: 'live' });
    const revoked = await run('api-key:issue', { application_id });
    const kept = await run('api-key:issue', { application_id });
    const info = (key: string) => app!.inject({ method: 'GET', url: `/v1/offers/info?offer_id=${offer_id}`, headers: { authorization: `Bearer ${key}` } });
    // An id that cannot be a card not applied yet (not a UUIDv7): answered not_found at once.
    const lookup = (key: string) =>
      app!.inject({ method: 'POST', url: '/v1/offers/instances', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: { offer_instance_ids: [randomUUID()] } });
    expect((await info(revoked.key)).statusCode).toBe(200);
    expect((await lookup(revoked.key)).statusCode).toBe(200);

    // The pooled sessions go on; a listening session ended now cannot open again.
    proxy.refuseNew();
    const gap = nextNotificationGap(api!);
    await writer.database.db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'");
    await gap;
    // Read from Postgres while nothing can be heard: still current.
    expect((await info(revoked.key)).statusCode).toBe(200);
    expect((await info(kept.key)).statusCode).toBe(200);
    expect((await lookup(revoked.key)).statusCode).toBe(200);

    await run('api-key:revoke', { key_id: revoked.key_id });
    await run('offer:upsert', { ...offer, offer_id, status: 'paused' });
    // Read again (a 503 only if the pooled session it needs is gone meanwhile), never the 200 read before.
    const afterRevoke = await info(revoked.key);
    expect([401, 503], afterRevoke.body).toContain(afterRevoke.statusCode);
    const lookedUp = await lookup(revoked.key);
    expect([401, 503], lookedUp.body).toContain(lookedUp.statusCode);
    const afterPause = await info(kept.key);
    expect([404, 503], afterPause.body).toContain(afterPause.statusCode);
  });
});
