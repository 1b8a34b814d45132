import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servesProjection } from '../../projections/serves/projection.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { replayProjection } from '../support/replay.js';
import { projectedServes } from '../support/serves.js';
import { details, servingAdmin } from '../support/serving-fixtures.js';
import { tableChecksum } from '../../platform/projection/checksum.js';
import { ReadModelsBehindError, awaitCaughtUp, lastSeenAtEnd } from '../../platform/projection/catch-up.js';
import { uuidV7 } from '../../platform/ids/uuid-v7.js';
import { withoutTable } from '../support/database.js';
import { queryExamples } from '../../services/api/routes/offers/query-examples.js';

// POST /v1/offers/query on Kafka, the registry, Postgres and Redis, and on the embedded default:
// credentials, the closed body, the three environments, read-your-writes and the replay of `serves`.
describe.each([['kafka'], ['embedded']] as const)('on the %s backend', (eventLog) => {
  let t: TestRuntime & { app: FastifyInstance };
  let projectors: RunningProjectors | undefined;
  const k = {} as Record<'live' | 'test' | 'sandbox' | 'revoked' | 'paused' | 'suspended' | 'suspendedPaused' | 'house', string>;
  const id = {} as Record<'houseApp' | 'housePlacement' | 'app' | 'placement' | 'inactivePlacement' | 'otherPlacement', string>;
  const offer = {} as Record<'plain' | 'deep' | 'noDestination' | 'testOnly' | 'paused', string>;

  type Body = { code: string; message: string; data: { cards?: Card[] }; extra: Record<string, unknown> };
  interface Card {
    offer_id: string;
    offer_instance_id: string;
    offer_info: { status: string; title?: string; category?: { id: string } };
    action?: { type: string; payload: { url: string } };
    [field: string]: unknown;
  }

  async function query(app: FastifyInstance, body: unknown, headers: Record<string, string> = {}) {
    const response = await app.inject({ method: 'POST', url: '/v1/offers/query', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
    return { status: response.statusCode, body: response.json() as Body, raw: response.body, headers: response.headers };
  }
  const bearer = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });
  const cardsOf = (body: Body) => body.data.cards ?? [];
  const inCategory = (cards: Card[], category: string) => cards.filter((card) => card.offer_info.category?.id === category);

  /** POST /v1/offers/instances with a Live key. */
  async function lookup(ids: string[], key: string) {
    const response = await t.app.inject({ method: 'POST', url: '/v1/offers/instances', headers: { 'content-type': 'application/json', ...bearer(key) }, payload: JSON.stringify({ offer_instance_ids: ids }) });
    return { status: response.statusCode, body: response.json() as { code: string; data: { instances: { offer_instance_id: string; status: string }[] } } };
  }

  async function servesEnd(): Promise<string> {
    return (await t.runtime.eventLog.endOffsets('serves')).map((end) => `${end.partition}:${end.offset}`).sort().join(',');
  }

  /** The served offer's internal fields: stored, never in a card. */
  const QUERY_INTERNAL = { credentials: { token: 'QUERY-INTERNAL-TOKEN' }, settlement_contract: 'QUERY-INTERNAL-CONTRACT', recommendation_context: { boost: 'QUERY-INTERNAL-BOOST' } };

  beforeAll(async () => {
    t = await createTestApp({ eventLog });
    projectors = await startProjectors(t.runtime);
    const admin = servingAdmin(t.runtime);

    const house = await admin.developer();
    id.houseApp = await admin.application(house);
    id.housePlacement = await admin.placement(id.houseApp);
    await admin.run('default-placement:designate', { placement_id: id.housePlacement });
    k.sandbox = (await admin.run('sandbox-key:ensure', {})).key!;
    k.house = (await admin.key(id.houseApp)).key;

    const developer = await admin.developer();
    id.app = await admin.application(developer);
    k.live = (await admin.key(id.app)).key;
    k.test = (await admin.key(id.app, 'test')).key;
    const revoked = await admin.key(id.app);
    await admin.run('api-key:revoke', { key_id: revoked.key_id });
    k.revoked = revoked.key;
    id.placement = await admin.placement(id.app);
    id.inactivePlacement = await admin.placement(id.app, 'inactive');
    id.otherPlacement = await admin.placement(await admin.application(developer));
    const pausedApp = await admin.application(developer);
    k.paused = (await admin.key(pausedApp)).key;
    await admin.run('application:set-status', { application_id: pausedApp, status: 'paused' });
    const suspended = await admin.developer();
    k.suspended = (await admin.key(await admin.application(suspended))).key;
    k.suspendedPaused = (await admin.key(await admin.application(suspended, 'paused'))).key;
    await admin.run('developer:set-status', { developer_id: suspended, status: 'suspended' });

    const partner_id = await admin.partner();
    offer.plain = await admin.offer({ partner_id, details: details('plain', { amount: '4.00' }), destination_url: 'https://shop.example/p?x=1', internal: QUERY_INTERNAL });
    offer.deep = await admin.offer({ partner_id, details: details('deep'), destination_url: 'myapp://offer/1' });
    offer.noDestination = await admin.offer({ partner_id, details: details('no-destination') });
    offer.testOnly = await admin.offer({ partner_id, details: details('test-only'), test_only: true, destination_url: 'https://shop.example/t' });
    offer.paused = await admin.offer({ partner_id, details: details('plain', { amount: '99.00' }), status: 'paused', destination_url: 'https://shop.example/x' });
  });

  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  describe('serving a card', () => {
    it('a Live key serves live cards: each is an OfferServed, projected into served_instances', async () => {
      const { status, body, raw } = await query(t.app, { placement_id: id.placement, limit: 5, context: { categories: ['plain'], intent: 'shoes', locale: 'en-US' } }, bearer(k.live));
      expect(status).toBe(200);
      expect(body).toMatchObject({ code: 'SUCCESS', message: '', extra: {} });
      const cards = cardsOf(body);
      expect(cards.length).toBeGreaterThan(0);
      expect(cards.length).toBeLessThanOrEqual(5);
      const [first] = cards;
      expect(first).toMatchObject({ offer_id: offer.plain, version: '3.0', offer_info: { status: 'active', title: 'offer in plain', category: { id: 'plain' } } });
      expect(first!.offer_instance_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(first!.action).toEqual({ type: 'url', payload: { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8080\/l\/[A-Za-z0-9]{8}$/) } });
      // The paused offer pays more but is never a candidate.
      expect(cards.map((card) => card.offer_id)).not.toContain(offer.paused);

      const rows = await projectedServes(t.runtime, cards.map((card) => card.offer_instance_id));
      expect(rows).toHaveLength(cards.length);
      const row = rows.find((r) => r.offer_instance_id === first!.offer_instance_id)!;
      expect(row).toMatchObject({
        application_id: id.app, placement_id: id.placement, offer_id: offer.plain, environment: 'live', anonymous: false,
        location_id: null, link_url: first!.action!.payload.url, destination_url: 'https://shop.example/p?x=1',
      });
      expect(row.link_url).toBe(`http://127.0.0.1:8080/l/${row.link_code}`);
      expect(row.served_at.getTime() % 1000).toBe(0);
      // The frozen destination, targeting and internals stay inside.
      for (const hidden of ['shop.example', 'destination_url', 'targeting', 'credentials', 'internal', 'QUERY-INTERNAL-']) expect(raw).not.toContain(hidden);
    });

    it('a deep-link destination gets a link but no action; an offer without destination gets neither', async () => {
      const { body } = await query(t.app, { limit: 10, context: { categories: ['deep', 'no-destination'] } }, bearer(k.live));
      const deep = inCategory(cardsOf(body), 'deep')[0]!;
      const bare = inCategory(cardsOf(body), 'no-destination')[0]!;
      expect(deep).not.toHaveProperty('action');
      expect(bare).not.toHaveProperty('action');
      const rows = await projectedServes(t.runtime, [deep.offer_instance_id, bare.offer_instance_id]);
      const byOffer = new Map(rows.map((row) => [row.offer_id, row]));
      expect(byOffer.get(offer.deep)).toMatchObject({ destination_url: 'myapp://offer/1', link_code: expect.stringMatching(/^[A-Za-z0-9]{8}$/) });
      expect(byOffer.get(offer.noDestination)).toMatchObject({ destination_url: null, link_code: null, link_url: null });
    });

    it('serves `limit` cards (default 3), one event each, no two with one link code', async () => {
      const servedCount = async () => {
        await awaitCaughtUp(t.runtime, [servesProjection], 30_000);
        return Number(await t.runtime.db.query<{ n: string }>('SELECT count(*) AS n FROM served_instances').then((r) => r.rows[0]!.n));
      };
      const before = await servedCount();
      const three = cardsOf((await query(t.app, {}, bearer(k.live))).body);
      const one = cardsOf((await query(t.app, { limit: 1 }, bearer(k.live))).body);
      expect(three).toHaveLength(3);
      expect(one).toHaveLength(1);
      const after = await servedCount();
      expect(after - before).toBe(4);
      const urls = three.map((card) => card.action?.payload.url).filter(Boolean);
      expect(new Set(urls).size).toBe(urls.length);
    });

    it('a live_limited application serves live cards with its key and placement, as a live one does', async () => {
      const admin = servingAdmin(t.runtime);
      const limited = await admin.application(await admin.developer(), 'live_limited');
      const key = (await admin.key(limited)).key;
      const placement = await admin.placement(limited);
      const { status, body } = await query(t.app, { placement_id: placement, limit: 1 }, bearer(key));
      expect(status).toBe(200);
      const rows = await projectedServes(t.runtime, cardsOf(body).map((card) => card.offer_instance_id));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ environment: 'live', application_id: limited, placement_id: placement, anonymous: false });
    });

    it('a Test key with X-SVC-Test: true serves test cards, and only test serves see test-only offers', async () => {
      const test = await query(t.app, { placement_id: id.placement, limit: 10, context: { categories: ['test-only'] } }, bearer(k.test, { 'x-svc-test': 'true' }));
      expect(test.status).toBe(200);
      const card = inCategory(cardsOf(test.body), 'test-only')[0]!;
      expect(card.offer_id).toBe(offer.testOnly);
      const [row] = await projectedServes(t.runtime, [card.offer_instance_id]);
      expect(row).toMatchObject({ environment: 'test', application_id: id.app, anonymous: false, placement_id: id.placement });
      // Without placement_id, a test serve too goes through the default placement to the default application.
      const anonymousTest = await query(t.app, { limit: 1 }, bearer(k.test, { 'x-svc-test': 'true' }));
      const [anonymousRow] = await projectedServes(t.runtime, cardsOf(anonymousTest.body).map((c) => c.offer_instance_id));
      expect(anonymousRow).toMatchObject({ environment: 'test', application_id: id.houseApp, anonymous: true, placement_id: id.housePlacement });

      for (const headers of [bearer(k.live), bearer(k.sandbox), {}]) {
        const other = await query(t.app, { limit: 10, context: { categories: ['test-only'] } }, headers);
        expect(other.status).toBe(200);
        expect(cardsOf(other.body).map((c) => c.offer_id)).not.toContain(offer.testOnly);
      }
    });

    it('the shared sandbox key serves sandbox cards for the default application, whatever X-SVC-Test says: anonymously without placement_id, or through the default placement named', async () => {
      for (const headers of [bearer(k.sandbox), bearer(k.sandbox, { 'x-svc-test': 'true' })]) {
        for (const [body, anonymous] of [[{ limit: 2 }, true], [{ limit: 2, placement_id: id.housePlacement }, false]] as const) {
          const answer = await query(t.app, body, headers);
          expect(answer.status).toBe(200);
          const rows = await projectedServes(t.runtime, cardsOf(answer.body).map((card) => card.offer_instance_id));
          expect(rows).toHaveLength(2);
          for (const row of rows) expect(row).toMatchObject({ environment: 'sandbox', application_id: id.houseApp, placement_id: id.housePlacement, anonymous });
        }
      }
      // Another application's placement is not the sandbox's.
      expect((await query(t.app, { placement_id: id.placement }, bearer(k.sandbox))).status).toBe(404);
    });

    it('offers of the categories in context.categories come first, above better-paying ones', async () => {
      const ask = async (categories?: string[]) =>
        cardsOf((await query(t.app, { placement_id: id.placement, limit: 1, ...(categories ? { context: { categories } } : {}) }, bearer(k.live))).body).map((card) => card.offer_id);
      // The deep-link offer pays less than the plain one, so it is first only as a wanted category.
      expect(await ask()).not.toEqual([offer.deep]);
      expect(await ask(['deep'])).toEqual([offer.deep]);
    });

    it('without a key and without placement_id the Query is anonymous: the default placement and application, live', async () => {
      const { status, body } = await query(t.app, {});
      expect(status).toBe(200);
      const rows = await projectedServes(t.runtime, cardsOf(body).map((card) => card.offer_instance_id));
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(row).toMatchObject({ environment: 'live', application_id: id.houseApp, placement_id: id.housePlacement, anonymous: true });
    });

    it('with a Live key and without placement_id the Query is anonymous too: its cards belong to the default application, not_found for the caller\'s key', async () => {
      const { status, body } = await query(t.app, { limit: 2 }, bearer(k.live));
      expect(status).toBe(200);
      const ids = cardsOf(body).map((card) => card.offer_instance_id);
      const rows = await projectedServes(t.runtime, ids);
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row).toMatchObject({ environment: 'live', application_id: id.houseApp, placement_id: id.housePlacement, anonymous: true });
      expect((await lookup(ids, k.live)).body.data.instances.map((item) => item.status)).toEqual(['not_found', 'not_found']);
      expect((await lookup(ids, k.house)).body.data.instances.map((item) => item.status)).toEqual(['found', 'found']);
    });

    it('a POST without any body (no Content-Type, no bytes) is the empty request, e.g. an anonymous Query', async () => {
      for (const headers of [{}, { 'content-length': '0' }]) {
        const response = await t.app.inject({ method: 'POST', url: '/v1/offers/query', headers });
        expect(response.statusCode, response.body).toBe(200);
        const rows = await projectedServes(t.runtime, cardsOf(response.json() as Body).map((card) => card.offer_instance_id));
        expect(rows).toHaveLength(3);
        for (const row of rows) expect(row).toMatchObject({ application_id: id.houseApp, placement_id: id.housePlacement, anonymous: true });
      }
      // No bytes sent chunked (as Node's http.request().end() sends a POST) is no body either.
      const chunked = await t.app.inject({ method: 'POST', url: '/v1/offers/query', headers: { 'transfer-encoding': 'chunked' }, payload: '' });
      expect(chunked.statusCode, chunked.body).toBe(200);
      // Bytes without Content-Type, and plain text even when it holds JSON, are not JSON bodies: 415, nothing served.
      const before = await servesEnd();
      for (const [headers, payload] of [[{}, '{"limit":1}'], [{ 'content-type': 'text/plain' }, '{"limit":1}']] as const) {
        const refused = await t.app.inject({ method: 'POST', url: '/v1/offers/query', headers, payload });
        expect(refused.statusCode, refused.body).toBe(415);
        expect(refused.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', data: {}, message: expect.stringContaining('send the body as JSON with Content-Type: application/json') });
      }
      // The document's examples are these answers.
      const plain = await t.app.inject({ method: 'POST', url: '/v1/offers/query', headers: { 'content-type': 'text/plain' }, payload: '{}' });
      expect(plain.json()).toEqual(queryExamples[415]!.UNSUPPORTED_MEDIA_TYPE!.value);
      const large = await t.app.inject({ method: 'POST', url: '/v1/offers/query', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ context: { intent: 'x'.repeat(70_000) } }) });
      expect(large.json()).toEqual(queryExamples[413]!.PAYLOAD_TOO_LARGE!.value);
      expect(await servesEnd()).toEqual(before);
      // A JSON null is a body, and not the request's object.
      const nullBody = await t.app.inject({ method: 'POST', url: '/v1/offers/query', headers: { 'content-type': 'application/json' }, payload: 'null' });
      expect(nullBody.statusCode).toBe(400);
      expect(nullBody.json()).toMatchObject({ code: 'BAD_REQUEST', extra: { field: '(body)' } });
    });

    it('with ANONYMOUS_QUERY=off a Query without placement_id is 401, with a key (the sandbox key too) or without; a key with its placement still serves', async () => {
      const off = await buildApp({ runtime: { ...t.runtime, config: { ...t.runtime.config, anonymousQuery: 'off' } } });
      try {
        const before = await servesEnd();
        // Rule 3 of the instance route: served anonymously where anonymous mode is available, otherwise rejected with 401.
        for (const headers of [{}, bearer(k.live), bearer(k.sandbox)]) {
          const anonymous = await query(off, {}, headers);
          expect(anonymous.status).toBe(401);
          expect(anonymous.body).toEqual({ code: 'UNAUTHORIZED', message: expect.stringContaining('anonymous Query is off'), data: {}, extra: {} });
        }
        expect(await servesEnd()).toBe(before);
        expect((await query(off, { placement_id: id.placement }, bearer(k.live))).status).toBe(200);
        // The sandbox key naming the default placement is not anonymous: it serves.
        const sandbox = await query(off, { limit: 1, placement_id: id.housePlacement }, bearer(k.sandbox));
        expect(sandbox.status).toBe(200);
        expect(await projectedServes(t.runtime, cardsOf(sandbox.body).map((card) => card.offer_instance_id))).toMatchObject([
          { environment: 'sandbox', application_id: id.houseApp, placement_id: id.housePlacement, anonymous: false },
        ]);
      } finally {
        await off.close();
      }
    });

    it('a card from Query is found by the instance route at once, 200 times in a row, and the projection latency is measured', async () => {
      const misses: string[] = [];
      for (let i = 0; i < 200; i += 1) {
        const { status, body } = await query(t.app, { placement_id: id.placement, limit: 1 }, bearer(k.live));
        expect(status).toBe(200);
        const [card] = cardsOf(body);
        const found = await lookup([card!.offer_instance_id], k.live);
        if (found.status !== 200 || found.body.data.instances[0]?.status !== 'found') misses.push(`${i}: ${found.status} ${found.body.data.instances?.[0]?.status}`);
      }
      expect(misses).toEqual([]);
      const metrics = await t.runtime.metrics.registry.getSingleMetricAsString('read_after_write_seconds');
      expect(metrics).toMatch(/read_after_write_seconds_count\{projection="serves"\} [1-9]\d{2,}/);
    });
  });

  describe('credentials', () => {
    it.each([
      ['placement_id without a key', 401, 'UNAUTHORIZED', () => ({ body: { placement_id: id.placement }, headers: {} })],
      ['an unknown key', 401, 'UNAUTHORIZED', () => ({ body: {}, headers: bearer('svc_live_nope') })],
      ['another scheme', 401, 'UNAUTHORIZED', () => ({ body: {}, headers: { authorization: `Basic ${k.live}` } })],
      ['a revoked key', 401, 'UNAUTHORIZED', () => ({ body: {}, headers: bearer(k.revoked) })],
      ['a Live key with X-SVC-Test: true', 401, 'ENV_MISMATCH', () => ({ body: {}, headers: bearer(k.live, { 'x-svc-test': 'true' }) })],
      ['a Test key without X-SVC-Test', 401, 'ENV_MISMATCH', () => ({ body: {}, headers: bearer(k.test) })],
      ['X-SVC-Test: true without a key', 401, 'ENV_MISMATCH', () => ({ body: {}, headers: { 'x-svc-test': 'true' } })],
      ['a paused application', 403, 'APPLICATION_NOT_SERVING', () => ({ body: {}, headers: bearer(k.paused) })],
      ['a suspended developer', 403, 'DEVELOPER_SUSPENDED', () => ({ body: {}, headers: bearer(k.suspended) })],
      ['a suspended developer\'s paused application (the developer checked first)', 403, 'DEVELOPER_SUSPENDED', () => ({ body: {}, headers: bearer(k.suspendedPaused) })],
      ["another application's placement", 404, 'NOT_FOUND', () => ({ body: { placement_id: id.otherPlacement }, headers: bearer(k.live) })],
      ['an unknown placement', 404, 'NOT_FOUND', () => ({ body: { placement_id: '01890000-0000-7000-8000-000000000000' }, headers: bearer(k.live) })],
      ['an inactive placement', 403, 'PLACEMENT_INACTIVE', () => ({ body: { placement_id: id.inactivePlacement }, headers: bearer(k.live) })],
    ])('%s: %i %s, nothing appended', async (_what, status, code, request) => {
      const before = await servesEnd();
      const { body, headers } = request();
      const answer = await query(t.app, body, headers);
      expect(answer.status).toBe(status);
      expect(answer.body).toMatchObject({ code, data: {} });
      expect(answer.body.message.length).toBeGreaterThan(0);
      expect(answer.headers['www-authenticate']).toBe(status === 401 ? 'Bearer' : undefined);
      expect(await servesEnd()).toBe(before);
    });

    it('answers 405 naming POST for other methods', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/v1/offers/query' });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(response.json()).toMatchObject({ code: '405', data: {} });
    });
  });

  describe('the closed body', () => {
    it('refuses a body larger than any Query can be (64 KiB) with 413 before parsing it; the instance route answers a long id list with its 400', async () => {
      const before = await servesEnd();
      const large = JSON.stringify({ context: { categories: ['x'], intent: 'y' }, padding: 'z'.repeat(70_000) });
      const response = await t.app.inject({ method: 'POST', url: '/v1/offers/query', headers: { 'content-type': 'application/json', ...bearer(k.live) }, payload: large });
      expect(response.statusCode).toBe(413);
      expect(response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('65536'), data: {} });
      expect(await servesEnd()).toBe(before);
      // The reference: over 100 ids is a 400 stating the list's rule, however long the list.
      const ids = Array.from({ length: 3_000 }, (_, i) => `0190a6e0-0000-7000-8000-${String(i).padStart(12, '0')}`);
      const lookup = await t.app.inject({ method: 'POST', url: '/v1/offers/instances', headers: { 'content-type': 'application/json', ...bearer(k.live) }, payload: { offer_instance_ids: ids } });
      expect(lookup.statusCode).toBe(400);
      expect(lookup.json()).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/between 1 and 100 offer instance ids/) });
    });

    it.each([
      [{ context: { user_profile: { location_ids: ['2840'] } } }, 'context.user_profile'],
      [{ context: { country: 'US' } }, 'context.country'],
      [{ context: { latitude: 48.1, longitude: 11.5 } }, 'context.latitude'],
      [{ location_ids: ['2840'] }, 'location_ids'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 11 }, 'limit'],
      [{ limit: 2.5 }, 'limit'],
      [{ limit: '3' }, 'limit'],
      [{ placement_id: 'home-feed' }, 'placement_id'],
      [{ context: 'shoes' }, 'context'],
      [{ context: { intent: 'x'.repeat(201) } }, 'context.intent'],
      [{ context: { locale: 'English please' } }, 'context.locale'],
      [{ context: { categories: Array.from({ length: 11 }, (_, i) => `c${i}`) } }, 'context.categories'],
      [{ context: { categories: ['ok', 7] } }, 'context.categories[1]'],
      [[], '(body)'],
      [null, '(body)'],
    ])('rejects %j with 400 naming %s, before credentials, appending nothing', async (body, field) => {
      const before = await servesEnd();
      // No key at all: the body is read first, so the 400 names the field whoever asks.
      const answer = await query(t.app, body, { authorization: 'Bearer svc_live_unknown' });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'BAD_REQUEST', data: {}, extra: { field } });
      expect(answer.body.message.startsWith(field === '(body)' ? 'the body' : field)).toBe(true);
      expect(await servesEnd()).toBe(before);
    });

    it('never answers 5xx to random bodies, and every rejection names a field (property)', async () => {
      const known = fc.constantFrom('placement_id', 'limit', 'context', 'intent', 'locale', 'categories', 'user_profile', 'location_ids', 'country');
      const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.integer({ min: -2, max: 12 }), fc.uuid());
      const object = fc.dictionary(fc.oneof(known, fc.string({ maxLength: 12 })), fc.oneof(value, fc.dictionary(fc.oneof(known, fc.string({ maxLength: 8 })), value, { maxKeys: 4 })), { maxKeys: 4 });
      await fc.assert(
        fc.asyncProperty(fc.oneof(object, fc.jsonValue({ maxDepth: 3 })), async (body) => {
          const answer = await query(t.app, body, bearer(k.live));
          expect(answer.status).toBeLessThan(500);
          if (answer.status === 400) {
            const field = answer.body.extra.field as string;
            expect(typeof field).toBe('string');
            expect(answer.body.message.startsWith(field === '(body)' ? 'the body' : field)).toBe(true);
          } else {
            expect([200, 403, 404]).toContain(answer.status);
          }
        }),
        { numRuns: 150 },
      );
    });
  });

  describe('when serving is unavailable (503 QUERY_UNAVAILABLE, no card handed out)', () => {
    const expectUnavailable = (answer: Awaited<ReturnType<typeof query>>) => {
      expect(answer.status, answer.raw).toBe(503);
      expect(answer.body).toEqual({ code: 'QUERY_UNAVAILABLE', message: expect.stringMatching(/retry$/), data: {}, extra: {} });
    };

    // Keys, placements and link codes are kept in process (emptied by every accounts commit; codes
    // checked ahead in batches), so each case asks for something this process has not read yet.
    const unavailableWithout = async (table: string, ask: (app: FastifyInstance) => ReturnType<typeof query>, app = t.app) => {
      const before = await servesEnd();
      await withoutTable(t.runtime.db, table, async () => expectUnavailable(await ask(app)));
      expect(await servesEnd()).toBe(before);
      expect((await ask(app)).status).toBe(200);
    };

    it('when the key lookup cannot be read: 503, never a 401, 404 or 500, and nothing appended', async () => {
      const fresh = (await servingAdmin(t.runtime).key(id.app)).key;
      await unavailableWithout('account_api_keys', (app) => query(app, { placement_id: id.placement, limit: 1 }, bearer(fresh)));
    });

    it('when the key lookup does not answer (its table locked by another session): 503 after the read deadline, not a hang', async () => {
      const fresh = (await servingAdmin(t.runtime).key(id.app)).key;
      const before = await servesEnd();
      await t.runtime.db.transaction(async (tx) => {
        await tx.query('LOCK TABLE account_api_keys IN ACCESS EXCLUSIVE MODE');
        expectUnavailable(await query(t.app, { placement_id: id.placement, limit: 1 }, bearer(fresh)));
      });
      expect(await servesEnd()).toBe(before);
      expect((await query(t.app, { placement_id: id.placement, limit: 1 }, bearer(fresh))).status).toBe(200);
    });

    it('when the placement cannot be read: 503, never a 401, 404 or 500, and nothing appended', async () => {
      const fresh = await servingAdmin(t.runtime).placement(id.app);
      await unavailableWithout('account_placements', (app) => query(app, { placement_id: fresh, limit: 1 }, bearer(k.live)));
    });

    it.each([
      ['the served link codes cannot be read', 'served_instances'],
      ['link codes cannot be claimed', 'link_code_claims'],
    ])('when %s: 503, never a 401, 404 or 500, and nothing appended', async (_what, table) => {
      // A process that has minted no link codes ahead yet.
      const fresh = await buildApp({ runtime: t.runtime });
      try {
        await unavailableWithout(table, (app) => query(app, { placement_id: id.placement, limit: 1 }, bearer(k.live)), fresh);
      } finally {
        await fresh.close();
      }
    });
  });

  describe('when the serves projection is behind (Query answers once its cards are logged; readers wait)', () => {
    // The embedded engine answers one session at a time: a lock held to keep the projector out
    // would keep the readers out too, so these run where the database is a server.
    if (eventLog !== 'embedded') {
      it('the card is handed out; looked up before it is projected it is a 503 after the wait, never not_found, and found once applied', async () => {
        const offerInfo = (url: string) => t.app.inject({ method: 'GET', url: `/v1/offers/info?offerurl=${encodeURIComponent(url)}`, headers: bearer(k.live) });
        // A UUIDv7 minted in 2023: unknown and old, so no reader waits for it.
        const oldUnknown = '01890000-0000-7000-8000-000000000000';
        const card = await t.runtime.db.transaction(async (tx) => {
          // The projector cannot write served_instances while this lock is held; reads still work.
          await tx.query('LOCK TABLE served_instances IN EXCLUSIVE MODE');
          const served = await query(t.app, { placement_id: id.placement, limit: 1, context: { categories: ['plain'] } }, bearer(k.live));
          expect(served.status, served.raw).toBe(200);
          const [fresh] = cardsOf(served.body);
          const early = await lookup([fresh!.offer_instance_id], k.live);
          expect(early.status).toBe(503);
          expect(early.body).toMatchObject({ code: 'OFFER_INSTANCE_UNAVAILABLE', data: {} });
          const info = await offerInfo(fresh!.action!.payload.url);
          expect(info.statusCode, info.body).toBe(503);
          expect(info.json()).toMatchObject({ code: 'OFFER_INFO_UNAVAILABLE', data: {} });
          // An id nobody minted lately is answered from what is applied, without waiting.
          const old = await lookup([oldUnknown], k.live);
          expect(old.status).toBe(200);
          expect(old.body.data.instances).toEqual([{ offer_instance_id: oldUnknown, status: 'not_found' }]);
          return fresh!;
        });
        const late = await lookup([card.offer_instance_id], k.live);
        expect(late.status).toBe(200);
        expect(late.body.data.instances[0]).toMatchObject({ offer_instance_id: card.offer_instance_id, status: 'found' });
        const info = await offerInfo(card.action!.payload.url);
        expect(info.statusCode, info.body).toBe(200);
        expect(info.json()).toMatchObject({ data: { offer_id: card.offer_id } });
      });

      it('a wait that reaches the log\'s end is remembered as the time the readers judge unknown ids by; one that does not is not', async () => {
        const before = Date.now();
        await awaitCaughtUp(t.runtime, [servesProjection], 10_000);
        const seen = lastSeenAtEnd(t.runtime, [servesProjection])!;
        expect(seen).toBeGreaterThanOrEqual(before);
        await t.runtime.db.transaction(async (tx) => {
          await tx.query('LOCK TABLE served_instances IN EXCLUSIVE MODE');
          expect((await query(t.app, { limit: 1, context: { categories: ['plain'] } }, bearer(k.live))).status).toBe(200);
          await expect(awaitCaughtUp(t.runtime, [servesProjection], 300)).rejects.toBeInstanceOf(ReadModelsBehindError);
          expect(lastSeenAtEnd(t.runtime, [servesProjection])).toBe(seen);
        });
      });
    }

    it('an id minted moments ago that no card has is not_found once the projection has caught up', async () => {
      const unknown = uuidV7();
      const answer = await lookup([unknown], k.live);
      expect(answer.status).toBe(200);
      expect(answer.body.data.instances).toEqual([{ offer_instance_id: unknown, status: 'not_found' }]);
    });
  });

  describe('what Query keeps in process follows the projectors (next request after the event is applied)', () => {
    it('a key that served, once revoked, is 401', async () => {
      const admin = servingAdmin(t.runtime);
      const fresh = await admin.key(id.app);
      expect((await query(t.app, { limit: 1 }, bearer(fresh.key))).status).toBe(200);
      await admin.run('api-key:revoke', { key_id: fresh.key_id });
      expect(await query(t.app, { limit: 1 }, bearer(fresh.key))).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
    });

    it('a placement that served, once inactive, is 403 PLACEMENT_INACTIVE', async () => {
      const admin = servingAdmin(t.runtime);
      const placement = await admin.placement(id.app);
      expect((await query(t.app, { placement_id: placement, limit: 1 }, bearer(k.live))).status).toBe(200);
      await admin.run('placement:set-status', { placement_id: placement, status: 'inactive' });
      expect(await query(t.app, { placement_id: placement, limit: 1 }, bearer(k.live))).toMatchObject({ status: 403, body: { code: 'PLACEMENT_INACTIVE' } });
    });

    it('an offer that was served, once paused, is served no more', async () => {
      const admin = servingAdmin(t.runtime);
      const partner_id = await admin.partner();
      const input = { partner_id, details: details('cache-follow', { amount: '1.00' }), destination_url: 'https://shop.example/c' };
      const offer_id = await admin.offer(input);
      const ask = async () => cardsOf((await query(t.app, { limit: 10, context: { categories: ['cache-follow'] } }, bearer(k.live))).body).map((card) => card.offer_id);
      expect(await ask()).toContain(offer_id);
      await admin.offer({ ...input, offer_id, status: 'paused' });
      expect(await ask()).not.toContain(offer_id);
    });
  });

  describe('replay', () => {
    it('rebuilds identical served_instances from the serves topic', async () => {
      // Query answers before its serves are applied: the live read model first takes in all the log holds.
      await awaitCaughtUp(t.runtime, [servesProjection], 30_000);
      await projectors!.stop();
      projectors = undefined;
      const before = await tableChecksum(t.runtime.db, 'served_instances');
      expect(Number(before.rows)).toBeGreaterThan(200);
      await replayProjection(t.runtime.db, t.runtime.eventLog, servesProjection);
      expect(await tableChecksum(t.runtime.db, 'served_instances')).toEqual(before);
    });
  });
});
