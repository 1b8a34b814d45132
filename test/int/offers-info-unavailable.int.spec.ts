import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { buildInstanceWorld, commandRunner, DETAILS, type InstanceWorld, type RunCommand } from '../support/instance-world.js';
import { expectFailure, expectOffer, infoClient } from '../support/offer-info.js';
import { appendServes, offerServed as servedCard } from '../support/serves.js';
import { nextNotificationGap } from '../support/notification-gap.js';
import { withoutTable as withoutTableIn } from '../support/database.js';

/** 503 OFFER_INFO_UNAVAILABLE when the read models cannot be read; Redis is never needed. */
describe('GET /v1/offers/info when a backend is unavailable', () => {
  let t: TestRuntime & { app: FastifyInstance };
  let projectors: RunningProjectors | undefined;
  let run: RunCommand;
  let world: InstanceWorld;
  let client: ReturnType<typeof infoClient>;

  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'kafka' });
    projectors = await startProjectors(t.runtime);
    run = commandRunner(t.runtime);
    world = await buildInstanceWorld(run);
    client = infoClient(t.app);
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  const expectUnavailable = (response: Awaited<ReturnType<typeof client.get>>) => expectFailure(response, 503, 'OFFER_INFO_UNAVAILABLE', /retry later/);
  const freshOffer = async () => (await run('offer:upsert', { partner_id: world.partner_id, kind: 'local', status: 'active', details: DETAILS })).offer_id as string;

  /** Runs `during` while `table` is renamed away, then puts it back. */
  const withoutTable = (table: string, during: () => Promise<void>) => withoutTableIn(t.database.db, table, during);

  it('when the offers cannot be read', async () => {
    const offer_id = await freshOffer();
    await withoutTable('offers', async () => expectUnavailable(await client.byId(world.keys.main, offer_id)));
    expectOffer(await client.byId(world.keys.main, offer_id));
  });

  it('when a read does not answer (the table locked by another session): 503 after the read deadline, never a hang', async () => {
    const offer_id = await freshOffer();
    await t.database.db.transaction(async (tx) => {
      await tx.query('LOCK TABLE offers IN ACCESS EXCLUSIVE MODE');
      expectUnavailable(await client.byId(world.keys.main, offer_id));
    });
    expectOffer(await client.byId(world.keys.main, offer_id));
  });

  it('when a remote offer\'s snapshots cannot be read', async () => {
    const { offer_id } = await run('offer:upsert', { partner_id: world.partner_id, kind: 'remote', status: 'active' });
    await run('offer:publish-snapshot', { offer_id, language: 'en', content: DETAILS });
    await withoutTable('offer_snapshots', async () => expectUnavailable(await client.byId(world.keys.main, offer_id)));
    expect(expectOffer(await client.byId(world.keys.main, offer_id)).offer_info.status).toBe('expired');
  });

  it('when registered links or served cards cannot be read (never a wrong 404)', async () => {
    const offer_id = await freshOffer();
    const { url } = await run('link:register', { offer_id, shape: 'short_code' });
    await withoutTable('tracked_links', async () => expectUnavailable(await client.byLink(world.keys.main, url)));
    const card = servedCard(t.runtime.config.linkBase, { application_id: world.apps.main, offer_id });
    await appendServes(t.runtime, [card]);
    await withoutTable('served_instances', async () => expectUnavailable(await client.byLink(world.keys.main, card.link_url!)));
    expect(expectOffer(await client.byLink(world.keys.main, card.link_url!)).offer_id).toBe(offer_id);
  });

  it('when the key cannot be looked up (never 500, never 401)', async () => {
    const { key } = await run('api-key:issue', { application_id: world.apps.main });
    await withoutTable('account_api_keys', async () => expectUnavailable(await client.byId(key, world.offers.rich)));
    expectOffer(await client.byId(key, world.offers.rich));
  });

  it('answers correctly from Postgres with Redis gone: the route never needs Redis', async () => {
    const offer_id = await freshOffer();
    const redis = t.runtime.redis!;
    expect(redis).toBeDefined();
    const ended = once(redis, 'end');
    redis.disconnect();
    await ended;
    await expect(redis.ping()).rejects.toThrow();
    expect(expectOffer(await client.byId(world.keys.main, offer_id)).offer_info.title).toBe(DETAILS.offer_info.title);
    await run('offer:upsert', { offer_id, partner_id: world.partner_id, kind: 'local', status: 'paused', details: DETAILS });
    expectFailure(await client.byId(world.keys.main, offer_id), 404, 'NOT_FOUND');
    expect(expectOffer(await client.byId(world.keys.main, world.offers.remote)).offer_info.status).toBe('expired');
  });

  it('when the database is gone: every read is a 503, an answer kept before included', async () => {
    const kept = await client.byId(world.keys.main, world.offers.rich);
    expectOffer(kept);
    expect((await client.byId(world.keys.main, world.offers.rich)).body).toBe(kept.body);
    await projectors!.stop();
    projectors = undefined;
    const gap = nextNotificationGap(t.runtime);
    const admin = new pg.Client({ connectionString: inject('stack').postgresAdminUrl });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE ${t.database.name} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
    await gap;
    // The listening session's drop empties the caches: a commit missed meanwhile could have paused it.
    expectUnavailable(await client.byId(world.keys.main, world.offers.rich));
    expectUnavailable(await client.byId(world.keys.main, uuidv7()));
    expectUnavailable(await client.byLink(world.keys.main, `${t.runtime.config.linkBase}/AbCd1234`));
    expectUnavailable(await client.byId(world.keys.other, uuidv7()));
  });
});
