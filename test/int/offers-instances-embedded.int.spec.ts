import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import type { OfferServed } from '../../schemas/generated/events.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { buildInstanceWorld, commandRunner, DETAILS, type InstanceWorld, type RunCommand } from '../support/instance-world.js';
import { appendServes, offerServed as servedCard } from '../support/serves.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';
import { withoutTable } from '../support/database.js';

/** The instance route on the embedded default (PGlite log and read models, no Redis), rules and cache invalidation. */
describe('POST /v1/offers/instances on the embedded default', () => {
  const dataDir = dataDirWithCluster('offer-ledger-instances-');
  let runtime: Runtime;
  let app: FastifyInstance;
  let projectors: RunningProjectors;
  let run: RunCommand;
  let world: InstanceWorld;

  beforeAll(async () => {
    runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    app = await buildApp({ runtime });
    projectors = await startProjectors(runtime);
    run = commandRunner(runtime);
    world = await buildInstanceWorld(run);
  });
  afterAll(async () => {
    await projectors?.stop();
    await app?.close();
    await runtime?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/v1/offers/instances',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(body),
    });
  const lookup = async (key: string, ids: string[]) => {
    const response = await post(key, { offer_instance_ids: ids });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.instances as Record<string, any>[];
  };
  const card = (overrides: Partial<OfferServed> = {}) =>
    servedCard(runtime.config.linkBase, { application_id: world.apps.main, offer_id: world.offers.rich, placement_id: world.placements.main, ...overrides });

  it('finds the caller\'s live cards with details and action, and nothing else', async () => {
    const mine = card();
    const remote = card({ offer_id: world.offers.remote, placement_id: null });
    const deepLink = card({ destination_url: 'myapp://item/1' });
    const others = [card({ application_id: world.apps.other }), card({ environment: 'test' }), card({ environment: 'sandbox' }), card({ offer_id: uuidv7() })];
    await appendServes(runtime, [mine, remote, deepLink, ...others]);
    const unknown = uuidv7();
    const items = await lookup(world.keys.main, [mine.offer_instance_id.toUpperCase(), remote.offer_instance_id, deepLink.offer_instance_id, ...others.map((c) => c.offer_instance_id), unknown, mine.offer_instance_id]);
    expect(items[0]).toEqual({
      offer_instance_id: mine.offer_instance_id,
      status: 'found',
      served_at: new Date(mine.served_at).toISOString().replace('.000Z', 'Z'),
      placement_id: world.placements.main,
      offer: {
        offer_id: world.offers.rich,
        offer_instance_id: mine.offer_instance_id,
        version: '3.0',
        offer_info: { status: 'active', ...DETAILS.offer_info },
        entity: DETAILS.entity,
        goals: DETAILS.goals,
        material: DETAILS.material,
        action: { type: 'url', payload: { url: mine.link_url } },
      },
    });
    expect(items[1]).toEqual({
      offer_instance_id: remote.offer_instance_id,
      status: 'found',
      served_at: expect.stringMatching(/Z$/),
      placement_id: null,
      offer: { offer_id: world.offers.remote, offer_instance_id: remote.offer_instance_id, offer_info: { status: 'expired' } },
    });
    expect(items[2]!.offer).not.toHaveProperty('action');
    expect(items.slice(3)).toEqual([...others.map((c) => c.offer_instance_id), unknown].map((offer_instance_id) => ({ offer_instance_id, status: 'not_found' })));
  });

  it('answers the reference\'s errors', async () => {
    expect((await post(world.keys.main, { offer_instance_ids: [] })).json()).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/between 1 and 100 offer instance ids/) });
    expect((await post(world.keys.main, { offer_instance_ids: [uuidv7()] }, { 'x-svc-test': 'true' })).json().code).toBe('ENV_MISMATCH');
    expect((await post(world.keys.sandbox, { offer_instance_ids: [uuidv7()] })).json().code).toBe('PUBLIC_TEST_SCOPE_DENIED');
    const testKey = await post(world.keys.mainTest, { offer_instance_ids: [uuidv7()] });
    expect([testKey.statusCode, testKey.json()]).toEqual([401, { code: 'UNAUTHORIZED', message: expect.any(String), data: {}, extra: {} }]);
    const get = await app.inject({ method: 'GET', url: '/v1/offers/instances' });
    expect([get.statusCode, get.json().code]).toEqual([405, '405']);
  });

  it('answers 503 OFFER_INSTANCE_UNAVAILABLE, no partial success, when the served cards cannot be read', async () => {
    const unread = card();
    await appendServes(runtime, [unread]);
    await withoutTable(runtime.db, 'served_instances', async () => {
      const refused = await post(world.keys.main, { offer_instance_ids: [unread.offer_instance_id, uuidv7()] });
      expect([refused.statusCode, refused.json()]).toEqual([503, { code: 'OFFER_INSTANCE_UNAVAILABLE', message: expect.stringMatching(/retry later/), data: {}, extra: {} }]);
    });
    expect((await lookup(world.keys.main, [unread.offer_instance_id]))[0]).toMatchObject({ status: 'found' });
  });

  it('reflects a pause, a deactivated placement and a revoked key on the first request after each is applied', async () => {
    const offer_id = uuidv7();
    const upsert = (status: string) => run('offer:upsert', { offer_id, partner_id: world.partner_id, kind: 'local', status, details: DETAILS, destination_url: 'https://shop.example/' });
    await upsert('active');
    const { placement_id } = await run('placement:create', { application_id: world.apps.main, name: 'embedded' });
    const issued = await run('api-key:issue', { application_id: world.apps.main });
    const c = card({ offer_id, placement_id });
    await appendServes(runtime, [c]);
    expect((await lookup(issued.key, [c.offer_instance_id]))[0]!.offer).toMatchObject({ offer_info: { status: 'active' }, action: { type: 'url' } });

    await upsert('paused');
    const [paused] = await lookup(issued.key, [c.offer_instance_id]);
    expect(paused!.offer.offer_info.status).toBe('paused');
    expect(paused!.offer).not.toHaveProperty('action');

    await upsert('active');
    expect((await lookup(issued.key, [c.offer_instance_id]))[0]!.offer.action).toEqual({ type: 'url', payload: { url: c.link_url } });
    await run('placement:set-status', { placement_id, status: 'inactive' });
    expect((await lookup(issued.key, [c.offer_instance_id]))[0]!.offer).not.toHaveProperty('action');

    await run('api-key:revoke', { key_id: issued.key_id });
    expect((await post(issued.key, { offer_instance_ids: [c.offer_instance_id] })).json().code).toBe('UNAUTHORIZED');
  });
});
