import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { buildInstanceWorld, commandRunner, DETAILS, type InstanceWorld, type RunCommand } from '../support/instance-world.js';
import { enc, expectFailure, expectOffer, infoClient, storeRawSnapshot, topicEnds } from '../support/offer-info.js';
import { mintCode } from '../../commands/offers/link-register.js';
import { appendServes, offerServed as servedCard } from '../support/serves.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';

const linkCode = () => mintCode('short_code');

/** GET /v1/offers/info on the embedded default (PGlite log and read models, no Redis): every rule and error row. */
describe('GET /v1/offers/info on the embedded default', () => {
  const dataDir = dataDirWithCluster('offer-ledger-info-');
  let runtime: Runtime;
  let app: FastifyInstance;
  let projectors: RunningProjectors;
  let run: RunCommand;
  let world: InstanceWorld;
  let client: ReturnType<typeof infoClient>;

  beforeAll(async () => {
    runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    app = await buildApp({ runtime });
    projectors = await startProjectors(runtime);
    run = commandRunner(runtime);
    world = await buildInstanceWorld(run);
    client = infoClient(app);
  });
  afterAll(async () => {
    await projectors?.stop();
    await app?.close();
    await runtime?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const rich = () => ({
    offer_id: world.offers.rich,
    version: '3.0',
    offer_info: { status: 'active', ...DETAILS.offer_info },
    entity: DETAILS.entity,
    goals: DETAILS.goals,
    material: DETAILS.material,
  });
  const action = (url: string) => ({ type: 'url', payload: { url }, name: DETAILS.action.name, consumer_action: DETAILS.action.consumer_action });

  it('answers by id, by every link shape (query and fragment echoed) and by both; a remote offer is expired with its language', async () => {
    expect(expectOffer(await client.byId(world.keys.main, world.offers.rich))).toEqual(rich());
    for (const shape of ['short_code', 'instance_uuid', 'static_path']) {
      const { url } = await run('link:register', { offer_id: world.offers.rich, shape, application_id: world.apps.other });
      const submitted = `${url}?sub_id1=a%2Fb&x=1#frag`;
      expect(expectOffer(await client.byLink(world.keys.main, submitted))).toEqual({ ...rich(), action: action(submitted) });
      expect(expectOffer(await client.both(world.keys.limited, world.offers.rich, url))).toEqual({ ...rich(), action: action(url) });
      expectFailure(await client.both(world.keys.main, world.offers.remote, url), 409, 'OFFER_INFO_IDENTITY_CONFLICT');
    }
    expect(expectOffer(await client.byId(world.keys.main, world.offers.remote))).toMatchObject({ offer_info: { status: 'expired' }, content_language: 'en' });
  });

  it('resolves a card\'s serve-time link, and reports the status the instance route reports for the card', async () => {
    const cards = [world.offers.rich, world.offers.remote].map((offer_id) => servedCard(runtime.config.linkBase, { application_id: world.apps.main, offer_id }));
    await appendServes(runtime, cards);
    const instances = (await app.inject({
      method: 'POST',
      url: '/v1/offers/instances',
      headers: { authorization: `Bearer ${world.keys.main}`, 'content-type': 'application/json' },
      payload: { offer_instance_ids: cards.map((c) => c.offer_instance_id) },
    })).json().data.instances;
    for (const [index, c] of cards.entries()) {
      const offer = expectOffer(await client.byLink(world.keys.other, `${c.link_url}#x`));
      expect(offer.offer_id).toBe(c.offer_id);
      expect(offer.offer_info.status).toBe(instances[index].offer.offer_info.status);
    }
  });

  it('answers the reference\'s errors', async () => {
    for (const which of ['paused', 'deleted', 'delisted', 'testOnly', 'bare'] as const) expectFailure(await client.byId(world.keys.main, world.offers[which]), 404, 'NOT_FOUND');
    expectFailure(await client.byId(world.keys.main, uuidv7()), 404, 'NOT_FOUND');
    expectFailure(await client.byLink(world.keys.main, `${runtime.config.linkBase}/${linkCode()}`), 404, 'NOT_FOUND');
    for (const query of ['', 'offer_id=', 'offer_id=sku-1', `offerurl=${enc('https://merchant.example/x')}`, `offerurl=${enc(`${runtime.config.linkBase}/short`)}`, 'offerurl=%ZZ']) {
      expectFailure(await client.get(world.keys.main, query), 400, 'BAD_REQUEST');
    }
    expectFailure(await client.byId(world.keys.mainTest, world.offers.rich), 401, 'UNAUTHORIZED');
    expectFailure(await client.byId(world.keys.mainRevoked, world.offers.rich), 401, 'UNAUTHORIZED');
    expectFailure(await client.byId(world.keys.sandbox, world.offers.rich), 403, 'PUBLIC_TEST_SCOPE_DENIED');
    expectFailure(await client.byId(world.keys.ofSuspendedDeveloper, world.offers.rich), 403, 'DEVELOPER_SUSPENDED');
    expectFailure(await client.byId(world.keys.paused, world.offers.rich), 403, 'APPLICATION_NOT_SERVING');
    const post = await app.inject({ method: 'POST', url: `/v1/offers/info?offer_id=${world.offers.rich}` });
    expect([post.statusCode, post.json().code, post.headers.allow]).toEqual([405, '405', 'GET']);
  });

  it('answers 503 for a malformed stored snapshot', async () => {
    const { offer_id } = await run('offer:upsert', { partner_id: world.partner_id, kind: 'remote', status: 'active' });
    await storeRawSnapshot(runtime, { offer_id, snapshot_id: uuidv7(), language: 'en', active: true, updated_at: Date.now(), content: '{"offer_info":{"title":"Half"}}' });
    expectFailure(await client.byId(world.keys.main, offer_id), 503, 'OFFER_INFO_UNAVAILABLE');
  });

  it('reflects a pause and a new snapshot on the first request after each is applied, and writes nothing', async () => {
    const before = await topicEnds(runtime);
    const offer_id = uuidv7();
    const upsert = (status: string) => run('offer:upsert', { offer_id, partner_id: world.partner_id, kind: 'local', status, details: DETAILS });
    await upsert('active');
    const afterSetup = await topicEnds(runtime);
    expect(afterSetup).not.toBe(before);
    expectOffer(await client.byId(world.keys.main, offer_id));
    await upsert('paused');
    expectFailure(await client.byId(world.keys.main, offer_id), 404, 'NOT_FOUND');
    await upsert('active');
    expectOffer(await client.byId(world.keys.main, offer_id));

    const { offer_id: remote } = await run('offer:upsert', { partner_id: world.partner_id, kind: 'remote', status: 'active' });
    await run('offer:publish-snapshot', { offer_id: remote, language: 'de', content: DETAILS });
    expect(expectOffer(await client.byId(world.keys.main, remote)).content_language).toBe('de');
    await run('offer:publish-snapshot', { offer_id: remote, language: 'en', content: { ...DETAILS, offer_info: { ...DETAILS.offer_info, title: 'English' } } });
    expect(expectOffer(await client.byId(world.keys.main, remote))).toMatchObject({ content_language: 'en', offer_info: { title: 'English' } });

    const ends = await topicEnds(runtime);
    for (let round = 0; round < 20; round += 1) {
      await client.byId(world.keys.main, remote);
      await client.byId(world.keys.main, uuidv7());
      await client.byLink(world.keys.main, `${runtime.config.linkBase}/${linkCode()}`);
    }
    expect(await topicEnds(runtime)).toBe(ends);
  });
});
