import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { projectedServes } from '../support/serves.js';
import { details, servingAdmin } from '../support/serving-fixtures.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';

// Query on the embedded default (PGlite log and read models in DATA_DIR, owned by this process):
// anonymous mode through the default placement, read-your-writes, account rules.
let dir: string;
let runtime: Runtime;
let projectors: RunningProjectors;
let app: FastifyInstance;
let admin: ReturnType<typeof servingAdmin>;
let house: { developer: string; application: string; placement: string };

async function query(body: unknown, headers: Record<string, string> = {}) {
  const response = await app.inject({ method: 'POST', url: '/v1/offers/query', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
  return { status: response.statusCode, body: response.json() as { code: string; data: { cards?: { offer_instance_id: string; offer_id: string }[] } } };
}

beforeAll(async () => {
  dir = dataDirWithCluster('offer-ledger-query-');
  runtime = await openRuntime(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  projectors = await startProjectors(runtime);
  app = await buildApp({ runtime });
  admin = servingAdmin(runtime);
  const developer = await admin.developer();
  const application = await admin.application(developer);
  house = { developer, application, placement: await admin.placement(application) };
  const partner_id = await admin.partner();
  await admin.offer({ partner_id, details: details('embedded'), destination_url: 'https://embedded.example/' });
});

afterAll(async () => {
  await app?.close();
  await projectors?.stop();
  await runtime?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Query on the embedded default', () => {
  it('is 401 without a key until a default placement is designated, then serves anonymously', async () => {
    const before = await query({});
    expect(before.status).toBe(401);
    expect(before.body).toMatchObject({ code: 'UNAUTHORIZED', data: {} });

    await admin.run('default-placement:designate', { placement_id: house.placement });
    const after = await query({ limit: 1 });
    expect(after.status).toBe(200);
    const [row] = await projectedServes(runtime, after.body.data.cards!.map((card) => card.offer_instance_id));
    expect(row).toMatchObject({ application_id: house.application, placement_id: house.placement, environment: 'live', anonymous: true });
  });

  it('a card from Query is found by the instance route at once, 100 times in a row', async () => {
    const { key } = await admin.key(house.application);
    for (let i = 0; i < 100; i += 1) {
      const { status, body } = await query({ limit: 2 }, { authorization: `Bearer ${key}` });
      expect(status).toBe(200);
      const ids = body.data.cards!.map((card) => card.offer_instance_id);
      const looked = await app.inject({ method: 'POST', url: '/v1/offers/instances', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: JSON.stringify({ offer_instance_ids: ids }) });
      expect(looked.statusCode, `query ${i}`).toBe(200);
      expect((looked.json() as { data: { instances: { status: string }[] } }).data.instances.map((item) => item.status), `query ${i}`).toEqual(ids.map(() => 'found'));
    }
  });

  it('a test key serves test cards only with X-SVC-Test: true', async () => {
    const { key } = await admin.key(house.application, 'test');
    expect((await query({}, { authorization: `Bearer ${key}` })).body.code).toBe('ENV_MISMATCH');
    const { status, body } = await query({ placement_id: house.placement, limit: 1 }, { authorization: `Bearer ${key}`, 'x-svc-test': 'true' });
    expect(status).toBe(200);
    const [row] = await projectedServes(runtime, [body.data.cards![0]!.offer_instance_id]);
    expect(row).toMatchObject({ environment: 'test', anonymous: false, placement_id: house.placement });
  });

  it('anonymous Query follows the default application and its developer: paused or suspended is 403', async () => {
    await admin.run('application:set-status', { application_id: house.application, status: 'paused' });
    expect(await query({})).toMatchObject({ status: 403, body: { code: 'APPLICATION_NOT_SERVING' } });
    await admin.run('developer:set-status', { developer_id: house.developer, status: 'suspended' });
    expect(await query({})).toMatchObject({ status: 403, body: { code: 'DEVELOPER_SUSPENDED' } });
  });
});
