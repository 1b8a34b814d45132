import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { details, servingAdmin } from '../support/serving-fixtures.js';

/**
 * An app server that got a card from Query finds it with POST /v1/offers/instances at once, with
 * no retry, although the serves projection is asynchronous (Query answers once its serves are
 * applied). On Kafka, the registry, Postgres and Redis, and on the embedded default; 1,000 times
 * in a row on each.
 */
describe.each([['kafka'], ['embedded']] as const)('a card from Query is found by the instance route at once (%s)', (eventLog) => {
  let t: TestRuntime & { app: FastifyInstance };
  let projectors: RunningProjectors | undefined;
  let key: string;
  let placement: string;

  beforeAll(async () => {
    t = await createTestApp({ eventLog });
    projectors = await startProjectors(t.runtime);
    const admin = servingAdmin(t.runtime);
    const application = await admin.application(await admin.developer());
    key = (await admin.key(application)).key;
    placement = await admin.placement(application);
    const partner = await admin.partner();
    await admin.offer({ partner_id: partner, details: details('games'), destination_url: 'https://merchant.example/landing?c={svc_click_id}' });
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  it('1,000 times in a row, each lookup right after its Query', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const misses: string[] = [];
    for (let round = 0; round < 1_000; round++) {
      const served = await t.app.inject({ method: 'POST', url: '/v1/offers/query', headers, payload: JSON.stringify({ placement_id: placement, limit: 1 }) });
      expect(served.statusCode).toBe(200);
      const card = (served.json() as { data: { cards: { offer_instance_id: string; action?: unknown }[] } }).data.cards[0]!;
      const looked = await t.app.inject({ method: 'POST', url: '/v1/offers/instances', headers, payload: JSON.stringify({ offer_instance_ids: [card.offer_instance_id] }) });
      const item = (looked.json() as { data: { instances: { status: string; offer?: { action?: unknown } }[] } }).data.instances[0]!;
      if (looked.statusCode !== 200 || item.status !== 'found') misses.push(`${round}: ${looked.statusCode} ${item?.status}`);
      // The card's action is the same tracked link on both routes.
      else expect(item.offer?.action).toEqual(card.action);
    }
    expect(misses).toEqual([]);
  }, 600_000);
});
