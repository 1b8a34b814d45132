import fc from 'fast-check';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { clicksProjection } from '../../projections/clicks/projection.js';
import { findClick } from '../../projections/clicks/queries.js';
import { TOPICS } from '../../schemas/topics.js';
import { publicStatus } from '../../projections/offers/public-offer.js';
import { findOffer } from '../../projections/offers/queries.js';
import type { OfferServed } from '../../schemas/generated/events.js';
import type { RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { buildApplications } from '../support/application-builder.js';
import { listeningPartnerEndpoint } from '../support/partner-endpoint.js';
import { DETAILS, refusedCredentials, startInstanceWorld, type CredentialCase, type InstanceWorld, type RunCommand } from '../support/instance-world.js';
import { appendServes, offerServed as servedCard } from '../support/serves.js';

type App = TestRuntime & { app: import('fastify').FastifyInstance };

const URL_PATH = '/v1/offers/instances';
const SECOND_PRECISION_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

// Every rule and error row of POST /v1/offers/instances, on the real stack and on the embedded default.
describe.each([['kafka'], ['embedded']] as const)('on the %s backend', (eventLog) => {
  let t: App;
  let projectors: RunningProjectors;
  let run: RunCommand;
  let world: InstanceWorld;

  beforeAll(async () => {
    t = await createTestApp({ eventLog });
    ({ projectors, run, world } = await startInstanceWorld(t.runtime));
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  function post(key: string | undefined, body: unknown, headers: Record<string, string> = {}) {
    return t.app.inject({
      method: 'POST',
      url: URL_PATH,
      headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), 'content-type': 'application/json', ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  async function lookup(key: string, ids: string[]) {
    const response = await post(key, { offer_instance_ids: ids });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ code: 'SUCCESS', message: '', extra: {} });
    expect(Object.keys(body).sort()).toEqual(['code', 'data', 'extra', 'message']);
    return body.data.instances as Record<string, any>[];
  }

  /** A live card of the main application through its active placement, of the rich offer, unless overridden. */
  const card = (overrides: Partial<OfferServed>  = {}) =>
    servedCard(t.runtime.config.linkBase, { application_id: world.apps.main, offer_id: world.offers.rich, placement_id: world.placements.main, ...overrides });

  async function serve(...cards: OfferServed[]) {
    await appendServes(t.runtime, cards);
    return cards;
  }

  function expectFailure(response: Awaited<ReturnType<typeof post>>, status: number, code: string, message?: RegExp) {
    expect(response.statusCode, response.body).toBe(status);
    const body = response.json();
    expect(body).toEqual({ code, message: expect.any(String), data: {}, extra: {} });
    if (message) expect(body.message).toMatch(message);
  }

  describe('found cards', () => {
    it('answers the offer projection of the current details, the echoed id, served_at in seconds and the tracked link as action', async () => {
      const [c] = await serve(card());
      const [item] = await lookup(world.keys.main, [c!.offer_instance_id]);
      expect(item).toEqual({
        offer_instance_id: c!.offer_instance_id,
        status: 'found',
        served_at: new Date(c!.served_at).toISOString().replace('.000Z', 'Z'),
        placement_id: world.placements.main,
        offer: {
          offer_id: world.offers.rich,
          offer_instance_id: c!.offer_instance_id,
          version: '3.0',
          offer_info: { status: 'active', ...DETAILS.offer_info },
          entity: DETAILS.entity,
          goals: DETAILS.goals,
          material: DETAILS.material,
          action: { type: 'url', payload: { url: c!.link_url } },
        },
      });
      expect(item!.served_at).toMatch(SECOND_PRECISION_UTC);
      expect(c!.link_url!.startsWith(`${t.runtime.config.linkBase}/`)).toBe(true);
    });

    it('never lets internals, the frozen destination or the owner out', async () => {
      const [c] = await serve(card());
      const response = await post(world.keys.main, { offer_instance_ids: [c!.offer_instance_id] });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      for (const secret of ['INTERNAL-', 'merchant.example', world.apps.main, world.partner_id, 'Shop now', 'Open the store', 'targeting', 'environment']) {
        expect(response.body).not.toContain(secret);
      }
    });

    it('writes served_at in RFC 3339 UTC at second precision even when the record holds milliseconds', async () => {
      const [c] = await serve(card({ served_at: Date.UTC(2026, 0, 2, 3, 4, 5, 678) }));
      const [item] = await lookup(world.keys.main, [c!.offer_instance_id]);
      expect(item!.served_at).toBe('2026-01-02T03:04:05Z');
    });

    it('gives placement_id null for a card served without a placement, which keeps its action', async () => {
      const [c] = await serve(card({ placement_id: null }));
      const [item] = await lookup(world.keys.main, [c!.offer_instance_id]);
      expect(item).toMatchObject({ status: 'found', placement_id: null, offer: { action: { type: 'url', payload: { url: c!.link_url } } } });
      expect(Object.keys(item!)).toContain('placement_id');
    });

    it('finds an anonymous card (served through the default placement) for the application it belongs to only', async () => {
      const [c] = await serve(card({ anonymous: true }));
      expect((await lookup(world.keys.main, [c!.offer_instance_id]))[0]!.status).toBe('found');
      expect(await lookup(world.keys.other, [c!.offer_instance_id])).toEqual([{ offer_instance_id: c!.offer_instance_id, status: 'not_found' }]);
    });

    it('answers a live_limited application like a live one', async () => {
      const [c] = await serve(card({ application_id: world.apps.limited, placement_id: null }));
      expect((await lookup(world.keys.limited, [c!.offer_instance_id]))[0]).toMatchObject({ status: 'found', offer: { action: { type: 'url' } } });
    });
  });

  describe('offers without shown details', () => {
    it('reports a real-time remote offer as found, expired, with no details and no action', async () => {
      const [c] = await serve(card({ offer_id: world.offers.remote }));
      const [item] = await lookup(world.keys.main, [c!.offer_instance_id]);
      expect(item!.offer).toEqual({ offer_id: world.offers.remote, offer_instance_id: c!.offer_instance_id, offer_info: { status: 'expired' } });
    });

    it('gives only offer_id, offer_instance_id and offer_info.status for an offer without stored details', async () => {
      const [c] = await serve(card({ offer_id: world.offers.bare }));
      const [item] = await lookup(world.keys.main, [c!.offer_instance_id]);
      expect(item!.offer).toEqual({ offer_id: world.offers.bare, offer_instance_id: c!.offer_instance_id, offer_info: { status: 'active' } });
    });

    it.each(['deleted', 'delisted', 'testOnly'] as const)('shows a %s offer (withdrawn content) as expired (no longer servable), no details and no action', async (which) => {
      const [c] = await serve(card({ offer_id: world.offers[which] }));
      const [item] = await lookup(world.keys.main, [c!.offer_instance_id]);
      expect(item).toMatchObject({ status: 'found', placement_id: world.placements.main });
      expect(item!.offer).toEqual({ offer_id: world.offers[which], offer_instance_id: c!.offer_instance_id, offer_info: { status: 'expired' } });
    });

    it.each(['paused', 'pending', 'rejected', 'expired'] as const)('shows a %s offer with its details and status, without action', async (status) => {
      const [c] = await serve(card({ offer_id: world.offers[status] }));
      const [item] = await lookup(world.keys.main, [c!.offer_instance_id]);
      expect(item!.offer).toMatchObject({ offer_info: { status, title: DETAILS.offer_info.title }, goals: DETAILS.goals });
      expect(item!.offer).not.toHaveProperty('action');
    });

    it('reports for every offer the status the offer routes share (publicStatus of the stored offer)', async () => {
      const offers = Object.values(world.offers);
      const cards = await serve(...offers.map((offer_id) => card({ offer_id })));
      const items = await lookup(world.keys.main, cards.map((c) => c.offer_instance_id));
      for (const [index, offer_id] of offers.entries()) {
        const stored = (await findOffer(t.runtime.db, offer_id))!;
        expect(items[index]!.offer.offer_info.status, offer_id).toBe(publicStatus(stored));
      }
    });
  });

  describe('action (rule 7)', () => {
    const actionOf = async (c: OfferServed) => (await lookup(world.keys.main, [c.offer_instance_id]))[0]!.offer.action;

    it.each([
      ['an https URL', 'https://shop.example/p?x=1#y', true],
      ['an http URL', 'http://shop.example/p', true],
      ['an https universal link', 'https://links.app.example/open/item/42', true],
      ['an app deep link (custom scheme)', 'myapp://product/42', false],
      ['an intent-style deep link', 'intent://scan/#Intent;scheme=zxing;end', false],
      ['a mailto link', 'mailto:someone@example.com', false],
      ['no destination', null, false],
      ['a relative path', '/landing', false],
      ['an https scheme without a host', 'https://', false],
    ])('with %s as the frozen destination: %s', async (_what, destination_url, expected) => {
      const [c] = await serve(card({ destination_url }));
      expect((await actionOf(c!)) !== undefined).toBe(expected);
    });

    it('is omitted for a card without a tracked short link', async () => {
      const [c] = await serve(card({ link_code: null }));
      const [item] = await lookup(world.keys.main, [c!.offer_instance_id]);
      expect(item!.status).toBe('found');
      expect(item!.offer).not.toHaveProperty('action');
      expect(item!.offer.offer_info.title).toBe(DETAILS.offer_info.title);
    });

    it('is omitted when the card\'s placement is inactive', async () => {
      const [c] = await serve(card({ placement_id: world.placements.mainInactive }));
      expect(await actionOf(c!)).toBeUndefined();
    });

    it('is omitted when the card\'s placement belongs to another application', async () => {
      const [c] = await serve(card({ placement_id: world.placements.other }));
      expect(await actionOf(c!)).toBeUndefined();
    });

    it('is omitted when the card\'s placement is unknown', async () => {
      const [c] = await serve(card({ placement_id: uuidv7() }));
      expect(await actionOf(c!)).toBeUndefined();
    });

    it('is never null: the key is absent', async () => {
      const [c] = await serve(card({ destination_url: 'myapp://x' }));
      const response = await post(world.keys.main, { offer_instance_ids: [c!.offer_instance_id] });
      expect(response.body).not.toContain('"action"');
    });
  });

  describe('not_found', () => {
    it('for unknown ids, other applications\' cards, test and sandbox serves, canonical offer ids and records without a resolvable offer', async () => {
      const cards = await serve(
        card({ application_id: world.apps.other, placement_id: world.placements.other }),
        card({ environment: 'test' }),
        card({ environment: 'sandbox', placement_id: null }),
        card({ offer_id: uuidv7() }),
      );
      const ids = [uuidv7(), ...cards.map((c) => c.offer_instance_id), world.offers.rich];
      expect(await lookup(world.keys.main, ids)).toEqual(ids.map((offer_instance_id) => ({ offer_instance_id, status: 'not_found' })));
    });

    it('answers exactly one item per de-duplicated id, in request order, with ids echoed in lowercase', async () => {
      const [a, b] = await serve(card(), card({ offer_id: world.offers.remote }));
      const unknown = uuidv7();
      const items = await lookup(world.keys.main, [
        b!.offer_instance_id.toUpperCase(),
        unknown,
        a!.offer_instance_id,
        b!.offer_instance_id,
        unknown.toUpperCase(),
        a!.offer_instance_id,
      ]);
      expect(items.map((item) => [item.offer_instance_id, item.status])).toEqual([
        [b!.offer_instance_id, 'found'],
        [unknown, 'not_found'],
        [a!.offer_instance_id, 'found'],
      ]);
      expect(items[0]!.offer.offer_instance_id).toBe(b!.offer_instance_id);
    });

    it('accepts exactly 100 ids, all answered', async () => {
      const cards = await serve(...Array.from({ length: 50 }, () => card()));
      const ids = [...cards.map((c) => c.offer_instance_id), ...Array.from({ length: 50 }, () => uuidv7())];
      const items = await lookup(world.keys.main, ids);
      expect(items.map((item) => item.offer_instance_id)).toEqual(ids);
      expect(items.filter((item) => item.status === 'found')).toHaveLength(50);
    });
  });

  describe('the cards kept in process', () => {
    const gauge = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await t.app.inject('/metrics')).body)?.[1]);

    it('reports on /metrics how many it keeps and the bytes they hold; unknown ids are not kept', async () => {
      const [cardsBefore, bytesBefore] = [await gauge('instance_cache_cards'), await gauge('instance_cache_bytes')];
      const cards = await serve(...Array.from({ length: 30 }, () => card()));
      await lookup(world.keys.main, [...cards.map((c) => c.offer_instance_id), uuidv7(), uuidv7()]);
      expect(await gauge('instance_cache_cards')).toBe(cardsBefore + 30);
      expect(await gauge('instance_cache_bytes')).toBeGreaterThanOrEqual(bytesBefore);
      expect(await gauge('instance_cache_bytes')).toBeGreaterThan(0);
    });
  });

  describe('authentication, in the reference\'s order', () => {
    const body = () => ({ offer_instance_ids: [uuidv7()] });

    it.each<CredentialCase>([
      ...refusedCredentials(() => world),
      ['a live key with X-SVC-Test: true', () => world.keys.main, { 'x-svc-test': 'true' }, 401, 'ENV_MISMATCH'],
    ])('%s → %i %s', async (_what, key, headers, status, code) => {
      const response = await post(key(), body(), headers);
      expectFailure(response, status, code);
      // RFC 9110, 11.6.1: a 401 names the scheme that answers it.
      expect(response.headers['www-authenticate']).toBe(status === 401 ? 'Bearer' : undefined);
    });

    it('takes another scheme or a malformed header as a missing key', async () => {
      for (const authorization of [`Basic ${world.keys.main}`, `Bearer`, `Bearer ${world.keys.main} extra`, world.keys.main]) {
        expectFailure(await post(undefined, body(), { authorization }), 401, 'UNAUTHORIZED');
      }
    });

    it('accepts a live key with X-SVC-Test other than true', async () => {
      expect((await post(world.keys.main, body(), { 'x-svc-test': 'false' })).statusCode).toBe(200);
    });

    it('checks the key before the body', async () => {
      expectFailure(await post(undefined, { nothing: 1 }), 401, 'UNAUTHORIZED');
      expectFailure(await post(world.keys.sandbox, 'not json', { 'content-type': 'text/plain' }), 403, 'PUBLIC_TEST_SCOPE_DENIED');
    });
  });

  describe('the body', () => {
    const RULE = /offer_instance_ids must contain between 1 and 100 offer instance ids/;

    it.each([
      ['missing list', {}],
      ['empty list', { offer_instance_ids: [] }],
      ['101 items', { offer_instance_ids: Array.from({ length: 101 }, () => uuidv7()) }],
      ['101 items that are one id repeated', { offer_instance_ids: Array.from({ length: 101 }, () => '0190a6e0-0000-7000-8000-000000000000') }],
      ['a string instead of a list', { offer_instance_ids: uuidv7() }],
      ['null', { offer_instance_ids: null }],
      ['a non-UUID item', { offer_instance_ids: [uuidv7(), 'abc'] }],
      ['a number item', { offer_instance_ids: [42] }],
      ['a UUID in braces', { offer_instance_ids: [`{${uuidv7()}}`] }],
      ['a urn:uuid', { offer_instance_ids: [`urn:uuid:${uuidv7()}`] }],
      ['a UUID without hyphens', { offer_instance_ids: [uuidv7().replace(/-/g, '')] }],
      ['a tracked short link', { offer_instance_ids: ['http://127.0.0.1:8080/l/AbCd1234'] }],
      ['a tracked instance-UUID link', { offer_instance_ids: [`http://127.0.0.1:8080/l/${uuidv7()}`] }],
      ['a bare short code', { offer_instance_ids: ['AbCd1234'] }],
      ['a JSON array body', [uuidv7()]],
      ['a JSON string body', JSON.stringify(uuidv7())],
      ['a JSON null body', 'null'],
    ])('400 BAD_REQUEST stating the rule for %s', async (_what, body) => {
      expectFailure(await post(world.keys.main, body), 400, 'BAD_REQUEST', RULE);
    });

    it('400 naming offer_instance_ids given twice (which list was meant is not ours to guess), stating the rule too', async () => {
      const response = await post(world.keys.main, `{"offer_instance_ids":["${uuidv7()}"],"offer_instance_ids":["${uuidv7()}"]}`);
      expectFailure(response, 400, 'BAD_REQUEST', /offer_instance_ids: is given twice/);
      expect(response.json().message).toMatch(RULE);
    });

    it('400 naming an unknown body field, stating the rule too', async () => {
      const response = await post(world.keys.main, { offer_instance_ids: [uuidv7()], limit: 5 });
      expectFailure(response, 400, 'BAD_REQUEST', /unknown body field "limit"/);
      expect(response.json().message).toMatch(RULE);
    });

    it.each([
      ['text/plain', uuidv7()],
      ['application/x-www-form-urlencoded', `offer_instance_ids=${uuidv7()}`],
      ['application/xml', '<ids/>'],
      ['not a media type', '{}'],
    ])('400 BAD_REQUEST for a body sent as %s, stating the rule', async (type, payload) => {
      const response = await post(world.keys.main, payload, { 'content-type': type });
      expectFailure(response, 400, 'BAD_REQUEST', /JSON/);
      expect(response.json().message).toMatch(RULE);
    });

    it('400 BAD_REQUEST stating the rule for malformed JSON, an empty JSON body, no body at all and a body without Content-Type', async () => {
      expectFailure(await post(world.keys.main, '{"offer_instance_ids": ['), 400, 'BAD_REQUEST', RULE);
      expectFailure(await post(world.keys.main, ''), 400, 'BAD_REQUEST', RULE);
      const bare = (payload?: string) =>
        t.app.inject({ method: 'POST', url: URL_PATH, headers: { authorization: `Bearer ${world.keys.main}` }, ...(payload === undefined ? {} : { payload }) });
      expectFailure(await bare(), 400, 'BAD_REQUEST', RULE);
      expectFailure(await bare(JSON.stringify({ offer_instance_ids: [uuidv7()] })), 400, 'BAD_REQUEST', /JSON/);
    });

    it('400 stating the rule, after the key, for a body in another charset, compressed, or over 1 MiB (the route\'s table has no 413 or 415)', async () => {
      const ids = JSON.stringify({ offer_instance_ids: [uuidv7()] });
      const latin1 = await post(world.keys.main, ids, { 'content-type': 'application/json; charset=latin1' });
      expectFailure(latin1, 400, 'BAD_REQUEST', /charset latin1 is not accepted/);
      expect(latin1.json().message).toMatch(RULE);
      const gzip = await post(world.keys.main, ids, { 'content-encoding': 'gzip' });
      expectFailure(gzip, 400, 'BAD_REQUEST', /Content-Encoding gzip is not accepted/);
      expect(gzip.json().message).toMatch(RULE);
      // The key first: without one, nothing is said about the body.
      expectFailure(await post(undefined, ids, { 'content-encoding': 'br' }), 401, 'UNAUTHORIZED');
      expectFailure(await post(undefined, ids, { 'content-type': 'application/json; charset=utf-16' }), 401, 'UNAUTHORIZED');
      const huge = await post(world.keys.main, JSON.stringify({ offer_instance_ids: Array.from({ length: 30_000 }, () => uuidv7()) }));
      expectFailure(huge, 400, 'BAD_REQUEST', /larger than the 1048576 bytes accepted/);
      expect(huge.json().message).toMatch(RULE);
    });

    it('accepts JSON with a charset parameter', async () => {
      expect((await post(world.keys.main, { offer_instance_ids: [uuidv7()] }, { 'content-type': 'application/json; charset=utf-8' })).statusCode).toBe(200);
    });

    it('answers random bodies with 200 when the reference\'s rule holds and 400 otherwise, in the envelope (property)', async () => {
      const uuid = fc.uuid().chain((id) => fc.constantFrom(id, id.toUpperCase()));
      const item = fc.oneof(uuid, uuid, fc.string(), fc.jsonValue(), fc.webUrl());
      const body = fc.oneof(
        fc.record({ offer_instance_ids: fc.array(item, { maxLength: 110 }) }),
        fc.record({ offer_instance_ids: fc.array(uuid, { minLength: 1, maxLength: 100 }) }),
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.jsonValue(),
      );
      // The reference's rule, written out on its own: one field, a list of 1 to 100 UUID strings.
      const valid = (value: unknown) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
        const list = (value as Record<string, unknown>).offer_instance_ids;
        return Object.keys(value).join() === 'offer_instance_ids' && Array.isArray(list) && list.length >= 1 && list.length <= 100
          && list.every((id) => typeof id === 'string' && /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(id));
      };
      await fc.assert(
        fc.asyncProperty(body, async (value) => {
          const response = await post(world.keys.main, JSON.stringify(value));
          expect(response.statusCode, response.body).toBe(valid(value) ? 200 : 400);
          const envelope = response.json();
          if (response.statusCode === 400) {
            expect(envelope).toEqual({ code: 'BAD_REQUEST', message: expect.any(String), data: {}, extra: {} });
            return;
          }
          const ids = (value as { offer_instance_ids: string[] }).offer_instance_ids.map((id) => id.toLowerCase());
          expect(envelope.data.instances.map((i: { offer_instance_id: string }) => i.offer_instance_id)).toEqual([...new Set(ids)]);
          for (const instance of envelope.data.instances) expect(['found', 'not_found']).toContain(instance.status);
        }),
        { numRuns: 300 },
      );
      await fc.assert(
        fc.asyncProperty(fc.string(), async (raw) => {
          expect([200, 400]).toContain((await post(world.keys.main, raw)).statusCode);
        }),
        { numRuns: 200 },
      );
    });
  });

  describe('methods', () => {
    it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const)('%s → 405 with code "405" and Allow: POST', async (method) => {
      const response = await t.app.inject({ method, url: URL_PATH, headers: { authorization: `Bearer ${world.keys.main}` } });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('POST');
      if (method !== 'HEAD') expect(response.json()).toEqual({ code: '405', message: expect.any(String), data: {}, extra: {} });
    });
  });

  describe('clicks on its action, and nothing of its own (rules 8 and 9)', () => {
    it('a click on a returned action is attributed to the card it came from (rule 8)', async () => {
      const [served] = await serve(card());
      const [item] = await lookup(world.keys.main, [served!.offer_instance_id]);
      const action = new URL(item!.offer.action.payload.url);
      const opened = await t.app.inject({ method: 'GET', url: `${action.pathname}?sub_id1=rule-8` });
      expect(opened.statusCode, opened.body).toBe(302);
      const clickId = new URL(opened.headers.location as string).searchParams.get('svc_click_id')!;
      await awaitCaughtUp(t.runtime, [clicksProjection], 60_000);
      expect(await findClick(t.runtime.db, clickId)).toMatchObject({
        offer_instance_id: served!.offer_instance_id, application_id: world.apps.main, offer_id: world.offers.rich, sub_id1: 'rule-8',
      });
    });

    it('appends no event to any topic and calls no partner, whatever it is asked (rule 9)', async () => {
      // A remote offer whose partner endpoint listens: a lookup of its card must not reach it.
      const { endpoint, calls: partnerCalls } = await listeningPartnerEndpoint();
      const { offer_id: remote } = await run('offer:upsert', { partner_id: world.partner_id, kind: 'remote', status: 'active', destination_url: 'https://remote.example/', internal: { remote_endpoint: endpoint } });
      await run('offer:publish-snapshot', { offer_id: remote, language: 'en', content: DETAILS });
      const [local, remoteCard] = await serve(card(), card({ offer_id: remote as string }));

      const ends = async () => JSON.stringify(await Promise.all(TOPICS.map(({ topic }) => t.runtime.eventLog.endOffsets(topic))));
      const before = await ends();
      for (let round = 0; round < 20; round += 1) {
        const items = await lookup(world.keys.main, [local!.offer_instance_id, remoteCard!.offer_instance_id, uuidv7()]);
        expect(items.map((item) => item.status)).toEqual(['found', 'found', 'not_found']);
        expect((await post(world.keys.other, { offer_instance_ids: [local!.offer_instance_id] })).statusCode).toBe(200);
        expect((await post(world.keys.main, { offer_instance_ids: [] })).statusCode).toBe(400);
        expect((await post(undefined, { offer_instance_ids: [local!.offer_instance_id] })).statusCode).toBe(401);
      }
      expect(await ends()).toBe(before);
      expect(partnerCalls).toEqual([]);
    });
  });

  describe('isolation across applications', () => {
    it('never shows one application another\'s card (120 applications, every card asked for by every application)', async () => {
      const apps = await buildApplications(t.runtime, 120);
      const cards = apps.flatMap((app) =>
        [world.offers.rich, world.offers.bare].map((offer_id) => card({ application_id: app.application_id, placement_id: app.placement_id, offer_id })),
      );
      await serve(...cards);
      const ids = cards.map((c) => c.offer_instance_id);
      for (const app of apps) {
        const own = new Set(cards.filter((c) => c.application_id === app.application_id).map((c) => c.offer_instance_id));
        const found: string[] = [];
        for (let start = 0; start < ids.length; start += 100) {
          for (const item of await lookup(app.key, ids.slice(start, start + 100))) {
            if (item.status === 'found') found.push(item.offer_instance_id);
            else expect(item).toEqual({ offer_instance_id: item.offer_instance_id, status: 'not_found' });
          }
        }
        expect(new Set(found)).toEqual(own);
      }
    });
  });

  describe('cached reads follow applied events', () => {
    const offerInput = (offer_id: string, status: string) => ({ offer_id, partner_id: world.partner_id, kind: 'local', status, details: DETAILS, destination_url: 'https://shop.example/' });

    it('serves key lookups, placements and offers from caches that an applied event of their read model empties', async () => {
      const [app] = await buildApplications(t.runtime, 1);
      const offer_id = uuidv7();
      await run('offer:upsert', offerInput(offer_id, 'active'));
      const [c] = await serve(card({ application_id: app!.application_id, placement_id: app!.placement_id, offer_id }));
      const before = await lookup(app!.key, [c!.offer_instance_id]);
      expect(before[0]!.offer).toMatchObject({ offer_info: { title: DETAILS.offer_info.title }, action: { type: 'url' } });
      // Rows changed behind the projections' back (no event) are not seen: these reads come from the caches.
      await t.database.db.query('UPDATE account_api_keys SET revoked_at = now() WHERE application_id = $1', [app!.application_id]);
      await t.database.db.query("UPDATE account_placements SET status = 'inactive' WHERE placement_id = $1", [app!.placement_id]);
      await t.database.db.query("UPDATE offers SET title = 'Changed behind the log' WHERE offer_id = $1", [offer_id]);
      expect(await lookup(app!.key, [c!.offer_instance_id])).toEqual(before);
      // An applied offers event (any offer) empties the offers cache, not the accounts caches...
      await run('offer:upsert', offerInput(uuidv7(), 'active'));
      const afterOffers = await lookup(app!.key, [c!.offer_instance_id]);
      expect(afterOffers[0]!.offer).toMatchObject({ offer_info: { title: 'Changed behind the log' }, action: { type: 'url' } });
      // ...and an applied accounts event (any account) empties the key and placement caches.
      await run('developer:register', { name: 'Another', email: `another-${uuidv7()}@instances.test` });
      expectFailure(await post(app!.key, { offer_instance_ids: [c!.offer_instance_id] }), 401, 'UNAUTHORIZED');
    });

    it('refuses a key on the first request after its revocation is applied', async () => {
      const issued = await run('api-key:issue', { application_id: world.apps.main });
      expect((await post(issued.key, { offer_instance_ids: [uuidv7()] })).statusCode).toBe(200);
      await run('api-key:revoke', { key_id: issued.key_id });
      expectFailure(await post(issued.key, { offer_instance_ids: [uuidv7()] }), 401, 'UNAUTHORIZED');
    });

    it('shows a paused offer as paused without action on the first request after the pause is applied, and back again', async () => {
      const offer_id = uuidv7();
      await run('offer:upsert', offerInput(offer_id, 'active'));
      const [c] = await serve(card({ offer_id }));
      expect((await lookup(world.keys.main, [c!.offer_instance_id]))[0]!.offer).toMatchObject({ offer_info: { status: 'active' }, action: { type: 'url' } });
      await run('offer:upsert', offerInput(offer_id, 'paused'));
      const [paused] = await lookup(world.keys.main, [c!.offer_instance_id]);
      expect(paused!.offer.offer_info.status).toBe('paused');
      expect(paused!.offer).not.toHaveProperty('action');
      await run('offer:upsert', offerInput(offer_id, 'active'));
      expect((await lookup(world.keys.main, [c!.offer_instance_id]))[0]!.offer).toMatchObject({ offer_info: { status: 'active' }, action: { type: 'url' } });
    });

    it('drops the action on the first request after the card\'s placement is deactivated, and brings it back', async () => {
      const { placement_id } = await run('placement:create', { application_id: world.apps.main, name: 'short-lived' });
      const [c] = await serve(card({ placement_id }));
      const actionNow = async () => (await lookup(world.keys.main, [c!.offer_instance_id]))[0]!.offer.action;
      expect(await actionNow()).toEqual({ type: 'url', payload: { url: c!.link_url } });
      await run('placement:set-status', { placement_id, status: 'inactive' });
      expect(await actionNow()).toBeUndefined();
      await run('placement:set-status', { placement_id, status: 'active' });
      expect(await actionNow()).toEqual({ type: 'url', payload: { url: c!.link_url } });
    });

    it('refuses a paused application and a suspended developer on the first request after the change is applied', async () => {
      const { developer_id } = await run('developer:register', { name: 'Changing', email: `changing-${uuidv7()}@instances.test` });
      const { application_id } = await run('application:register', { developer_id, name: 'changing' });
      const { key } = await run('api-key:issue', { application_id });
      const ask = () => post(key, { offer_instance_ids: [uuidv7()] });
      expect((await ask()).statusCode).toBe(200);
      await run('application:set-status', { application_id, status: 'paused' });
      expectFailure(await ask(), 403, 'APPLICATION_NOT_SERVING');
      await run('application:set-status', { application_id, status: 'live' });
      expect((await ask()).statusCode).toBe(200);
      await run('developer:set-status', { developer_id, status: 'suspended' });
      expectFailure(await ask(), 403, 'DEVELOPER_SUSPENDED');
    });
  });
});
