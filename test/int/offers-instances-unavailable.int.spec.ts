import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import type { OfferServed } from '../../schemas/generated/events.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { DETAILS, startInstanceWorld, type InstanceWorld, type RunCommand } from '../support/instance-world.js';
import { appendServes, offerServed as servedCard, projectedServes } from '../support/serves.js';
import { nextNotificationGap } from '../support/notification-gap.js';
import { withoutTable as withoutTableIn } from '../support/database.js';

/** 503 OFFER_INSTANCE_UNAVAILABLE: whatever part of the read models cannot be read, the whole request fails. */
describe('POST /v1/offers/instances when the read models cannot be read', () => {
  let t: TestRuntime & { app: import('fastify').FastifyInstance };
  let projectors: RunningProjectors | undefined;
  let run: RunCommand;
  let world: InstanceWorld;

  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'kafka' });
    ({ projectors, run, world } = await startInstanceWorld(t.runtime));
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  const post = (key: string, ids: string[]) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/offers/instances',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: { offer_instance_ids: ids },
    });
  const card = (overrides: Partial<OfferServed> = {}) =>
    servedCard(t.runtime.config.linkBase, { application_id: world.apps.main, offer_id: world.offers.rich, placement_id: world.placements.main, ...overrides });
  const expectUnavailable = (response: Awaited<ReturnType<typeof post>>) => {
    expect(response.statusCode, response.body).toBe(503);
    expect(response.json()).toEqual({ code: 'OFFER_INSTANCE_UNAVAILABLE', message: expect.stringMatching(/retry later/), data: {}, extra: {} });
  };
  const nextGap = () => nextNotificationGap(t.runtime);
  /** Runs `during` while `table` is renamed away, then puts it back. */
  const withoutTable = (table: string, during: () => Promise<void>) => withoutTableIn(t.database.db, table, during);

  it('when the served cards cannot be read (a card this process has not read yet)', async () => {
    const c = card();
    await appendServes(t.runtime, [c]);
    await withoutTable('served_instances', async () => expectUnavailable(await post(world.keys.main, [c.offer_instance_id])));
    expect((await post(world.keys.main, [c.offer_instance_id])).statusCode).toBe(200);
  });

  it('when a read does not answer (the table locked by another session): 503 after the read deadline, never a hang', async () => {
    const c = card();
    await appendServes(t.runtime, [c]);
    await t.database.db.transaction(async (tx) => {
      await tx.query('LOCK TABLE served_instances IN ACCESS EXCLUSIVE MODE');
      expectUnavailable(await post(world.keys.main, [c.offer_instance_id]));
    });
    expect((await post(world.keys.main, [c.offer_instance_id])).json().data.instances[0].status).toBe('found');
  });

  it('a card once read is answered from the process (a serve never changes) until the process may have missed a commit', async () => {
    const c = card();
    await appendServes(t.runtime, [c]);
    const first = await post(world.keys.main, [c.offer_instance_id]);
    expect(first.json().data.instances[0].status).toBe('found');
    await withoutTable('served_instances', async () => {
      expect((await post(world.keys.main, [c.offer_instance_id])).body).toBe(first.body);
      // The listening session dropped: from then on nothing kept is trusted.
      const gap = nextGap();
      await t.database.db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'");
      await gap;
      expectUnavailable(await post(world.keys.main, [c.offer_instance_id]));
    });
    expect((await post(world.keys.main, [c.offer_instance_id])).body).toBe(first.body);
  });

  it('when one card\'s offer cannot be read, even though the others\' are cached (no partial success)', async () => {
    const { offer_id } = await run('offer:upsert', { partner_id: world.partner_id, kind: 'local', status: 'active', details: DETAILS });
    const cached = card();
    const uncached = card({ offer_id });
    await appendServes(t.runtime, [cached, uncached]);
    expect((await post(world.keys.main, [cached.offer_instance_id])).statusCode).toBe(200);
    await withoutTable('offer_goals', async () => {
      expect((await post(world.keys.main, [cached.offer_instance_id])).statusCode).toBe(200);
      expectUnavailable(await post(world.keys.main, [cached.offer_instance_id, uncached.offer_instance_id]));
    });
    const response = await post(world.keys.main, [cached.offer_instance_id, uncached.offer_instance_id]);
    expect(response.json().data.instances.map((item: { status: string }) => item.status)).toEqual(['found', 'found']);
  });

  it('when the card\'s placement cannot be read', async () => {
    const { placement_id } = await run('placement:create', { application_id: world.apps.main, name: 'fresh' });
    const c = card({ placement_id });
    await appendServes(t.runtime, [c]);
    await withoutTable('account_placements', async () => expectUnavailable(await post(world.keys.main, [c.offer_instance_id])));
  });

  it('when the key cannot be looked up (never 500, never 401)', async () => {
    const { key } = await run('api-key:issue', { application_id: world.apps.main });
    await withoutTable('account_api_keys', async () => expectUnavailable(await post(key, [uuidv7()])));
    expect((await post(key, [uuidv7()])).statusCode).toBe(200);
  });

  it('in a process started while the projector is behind: a card served minutes ago and not applied yet is 503, never not_found; found once applied', async () => {
    // Its UUIDv7 says it was minted five minutes ago; it is logged, not projected.
    const c = card({ offer_instance_id: uuidv7({ msecs: Date.now() - 5 * 60_000 }) });
    await projectors!.stop();
    try {
      await appendServes(t.runtime, [c], { applied: false });
      // A runtime of its own knows nothing of the read models yet, as a process just started.
      const restarted = await buildApp({ runtime: { ...t.runtime } });
      try {
        const response = await restarted.inject({
          method: 'POST',
          url: '/v1/offers/instances',
          headers: { authorization: `Bearer ${world.keys.main}`, 'content-type': 'application/json' },
          payload: { offer_instance_ids: [c.offer_instance_id] },
        });
        expect(response.statusCode, response.body).toBe(503);
        expect(response.json()).toEqual({ code: 'OFFER_INSTANCE_UNAVAILABLE', message: expect.stringMatching(/not readable yet .*retry shortly/), data: {}, extra: {} });
      } finally {
        await restarted.close();
      }
    } finally {
      projectors = await startProjectors(t.runtime);
    }
    // The card was logged now under an id of five minutes ago: wait for it, as a real one would not need.
    await projectedServes(t.runtime, [c.offer_instance_id]);
    expect((await post(world.keys.main, [c.offer_instance_id])).json().data.instances[0].status).toBe('found');
  });

  it('when the database is gone, even for a card and a key in the caches: they are dropped with the listening session', async () => {
    const c = card();
    await appendServes(t.runtime, [c]);
    expect((await post(world.keys.main, [c.offer_instance_id])).statusCode).toBe(200);
    await projectors!.stop();
    projectors = undefined;
    const gap = nextGap();
    const admin = new pg.Client({ connectionString: inject('stack').postgresAdminUrl });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE ${t.database.name} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
    await gap;
    expectUnavailable(await post(world.keys.main, [c.offer_instance_id]));
    expectUnavailable(await post(world.keys.other, [c.offer_instance_id]));
  });
});
