import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { details, servingAdmin } from '../support/serving-fixtures.js';

// QUERY_RATE_LIMIT and CLICK_RATE_LIMIT through the real settings, counted in the real Redis under
// the runtime's own TOPIC_PREFIX (so parallel files never share a counter). Each case uses its own
// client addresses, so the order of the cases does not matter.
const LIMIT = 3;
let t: TestRuntime & { app: FastifyInstance };
let projectors: RunningProjectors | undefined;
let liveKey: string;
let placementId: string;
let sandboxKey: string;
let linkPath: string;

const query = (remoteAddress: string, body: unknown = {}, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/offers/query', remoteAddress, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
const open = (remoteAddress: string, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url: linkPath, remoteAddress });
const endOf = async (topic: 'serves' | 'clicks') => JSON.stringify(await t.runtime.eventLog.endOffsets(topic));

function expectRateLimited(response: LightMyRequestResponse) {
  expect(response.statusCode).toBe(429);
  const body = response.json();
  expect(Object.keys(body).sort()).toEqual(['code', 'data', 'extra', 'message']);
  expect(body.code).toBe('RATE_LIMITED');
  expect(body.data).toEqual({});
  expect(body.extra.retry_after_seconds).toBeGreaterThanOrEqual(1);
  expect(body.extra.retry_after_seconds).toBeLessThanOrEqual(60);
  expect(response.headers['retry-after']).toBe(String(body.extra.retry_after_seconds));
}

beforeAll(async () => {
  t = await createTestApp({ env: { QUERY_RATE_LIMIT: String(LIMIT), CLICK_RATE_LIMIT: String(LIMIT), ANONYMOUS_QUERY: 'on' } });
  projectors = await startProjectors(t.runtime);
  const admin = servingAdmin(t.runtime);
  const house = await admin.application(await admin.developer());
  await admin.run('default-placement:designate', { placement_id: await admin.placement(house) });
  sandboxKey = (await admin.run('sandbox-key:ensure', {})).key!;
  const app = await admin.application(await admin.developer());
  liveKey = (await admin.key(app)).key;
  placementId = await admin.placement(app);
  await admin.offer({ partner_id: await admin.partner(), details: details('limited'), destination_url: 'https://shop.example/limited' });

  // A card's short link, served from an address of its own (the click cases use others).
  const served = await query('192.0.2.200');
  expect(served.statusCode).toBe(200);
  linkPath = new URL(served.json().data.cards[0].action.payload.url).pathname;
});

afterAll(async () => {
  await projectors?.stop();
  await t?.close();
});

describe('Query rate limit (QUERY_RATE_LIMIT per client address)', () => {
  it('refuses an anonymous caller past the limit with 429 in the envelope, logging nothing for it', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await query('203.0.113.10')).statusCode).toBe(200);
    const before = await endOf('serves');
    expectRateLimited(await query('203.0.113.10'));
    expect(await endOf('serves')).toBe(before);
    // Counted in Redis under the environment's prefix, per address.
    expect(await t.runtime.redis!.keys(`${t.topicPrefix}ratelimit:query:203.0.113.10`)).toHaveLength(1);
    expect((await query('203.0.113.11')).statusCode).toBe(200);
  });

  it('counts an IPv6 client by its /64, which is all one subscriber', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await query(`2001:db8:77:1::${i + 1}`)).statusCode).toBe(200);
    expectRateLimited(await query('2001:db8:77:1:ffff:ffff:ffff:ffff'));
    expect((await query('2001:db8:77:2::1')).statusCode).toBe(200);
    expect(await t.runtime.redis!.keys(`${t.topicPrefix}ratelimit:query:2001:db8:77:1::/64`)).toHaveLength(1);
  });

  it('counts the shared sandbox key, which anyone may hold, like no key', async () => {
    const sandbox = { authorization: `Bearer ${sandboxKey}` };
    for (let i = 0; i < LIMIT; i++) expect((await query('203.0.113.20', {}, sandbox)).statusCode).toBe(200);
    expectRateLimited(await query('203.0.113.20', {}, sandbox));
    expectRateLimited(await query('203.0.113.20'));
  });

  it('counts unknown keys (their 401s) too', async () => {
    const unknown = { authorization: 'Bearer sk_live_not_a_key_of_anyone_0000000000' };
    for (let i = 0; i < LIMIT; i++) expect((await query('203.0.113.30', {}, unknown)).statusCode).toBe(401);
    expectRateLimited(await query('203.0.113.30', {}, unknown));
  });

  it("does not count an application's own key, even from an address that is over the limit", async () => {
    for (let i = 0; i < LIMIT + 1; i++) await query('203.0.113.40');
    expectRateLimited(await query('203.0.113.40'));
    for (let i = 0; i < LIMIT + 2; i++) {
      expect((await query('203.0.113.40', { placement_id: placementId }, { authorization: `Bearer ${liveKey}` })).statusCode).toBe(200);
    }
    // With the key but without placement_id the cards are anonymous, the caller still known.
    expect((await query('203.0.113.40', {}, { authorization: `Bearer ${liveKey}` })).statusCode).toBe(200);
  });
});

describe('the instance route', () => {
  it('has no rate limit (reference, instance route rule 9), whatever the other limits are', async () => {
    const served = await query('192.0.2.201', { placement_id: placementId }, { authorization: `Bearer ${liveKey}` });
    const ids = served.json().data.cards.map((card: { offer_instance_id: string }) => card.offer_instance_id);
    for (let i = 0; i < 4 * LIMIT; i++) {
      const response = await t.app.inject({
        method: 'POST', url: '/v1/offers/instances', remoteAddress: '203.0.113.90',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${liveKey}` }, payload: JSON.stringify({ offer_instance_ids: ids }),
      });
      expect(response.statusCode).toBe(200);
    }
  });
});

describe('click rate limit (CLICK_RATE_LIMIT per client address)', () => {
  it('refuses opens past the limit with 429, recording no click, with the link headers', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await open('198.51.100.10')).statusCode).toBe(302);
    const before = await endOf('clicks');
    const limited = await open('198.51.100.10');
    expectRateLimited(limited);
    expect(limited.headers['cache-control']).toBe('no-store');
    expect(await endOf('clicks')).toBe(before);
    expect((await open('198.51.100.11')).statusCode).toBe(302);
  });

  it('counts HEAD with GET', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await open('198.51.100.20', 'HEAD')).statusCode).toBe(302);
    expect((await open('198.51.100.20')).statusCode).toBe(429);
  });
});
