import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { projections, startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { buildInstanceWorld, commandRunner, type InstanceWorld } from '../support/instance-world.js';
import { postbackWorld } from '../support/postback-world.js';

/**
 * Every public and operator route at once, with requests made of the values real callers send
 * (real keys, ids, link codes) mixed with damaged ones: wrong methods, doubled and unknown
 * parameters, broken percent-encoding, odd headers and bodies. Whatever arrives: never a 500, a
 * JSON envelope on every /v1 answer that is not a redirect, and a refusal appends no event
 * (postbacks excepted: some refusals are logged by design, see the reasons table). The only 5xx
 * allowed is a 503 with the route's documented code.
 * `FUZZ_RUNS=15000 npx vitest run test/int/api-fuzz.int.spec.ts` searches longer and prints how
 * often each route gave each status.
 */
const ADMIN_TOKEN = 'fuzz-admin-token-0123456789abcdef';
let t: Awaited<ReturnType<typeof createTestApp>>;
let projectors: RunningProjectors;
let world: InstanceWorld;
let partner: string;
let linkCode: string;
let clickId: string;
let instanceId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { REDIS_URL: '', LOCATION_RATE_LIMIT: '1000000', ADMIN_TOKEN, ANONYMOUS_QUERY: 'on', TRUSTED_GEO_HEADERS: 'cloudflare' } });
  projectors = await startProjectors(t.runtime);
  await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
  world = await buildInstanceWorld(commandRunner(t.runtime));
  const postbacks = await postbackWorld(t.runtime);
  partner = postbacks.partner;
  const card = await postbacks.serve(postbacks.cpaOffer);
  linkCode = card.link_code!;
  instanceId = card.offer_instance_id;
  clickId = await postbacks.click(card);
}, 180_000);
afterAll(async () => {
  await projectors?.stop();
  await t?.close();
});

/** Text callers send, and text that breaks parsers: empty, huge, encodings, controls, surrogates. */
const junk = fc.oneof(
  fc.constantFrom('', ' ', '%', '%zz', '%00', '%C0%AF', '..%2F', '%E2%82', '{click_id}', 'null', '[]', '{}', '-1', '1e999', '0x10', 'NaN', '\u0000', '\ud800', 'ÿ', '😀'),
  fc.string({ maxLength: 12, unit: 'grapheme' }),
  fc.string({ maxLength: 12, unit: 'binary' }),
  fc.constant('x'.repeat(3_000)),
);

function realValues() {
  return [
    world.offers.rich, world.offers.remote, world.apps.main, world.placements.main, partner, linkCode, clickId, instanceId,
    `http://127.0.0.1:8080/l/${linkCode}`, '2840', '21136', 'US', 'US-CA', 'FULL', 'LEGACY', '10', '1.00', 'USD', 'purchase', 'true',
  ];
}

/**
 * Percent-encoded as a client should (a lone surrogate as the bytes of its code point, which is
 * not UTF-8), or sent raw (only what would end the path or query dropped).
 */
const encode = (value: string, raw: boolean) =>
  raw ? value.replace(/[\s#?&]/g, '') : value.split(/([\ud800-\udfff])/).map((part) => (/^[\ud800-\udfff]$/.test(part) ? '%ED%A0%80' : encodeURIComponent(part))).join('');

const PARAMETERS = [
  'catalog', 'q', 'limit', 'cursor', 'country', 'parent_location_id', 'target_types', 'subdivision_code', 'subdivision_code_type', 'levels', 'locale',
  'location_id', 'city', 'offer_id', 'offerurl', 'event_name', 'svc_click_id', 'svc_tracking_id', 'offer_instance_id', 'event_id', 'amount', 'currency',
  'order_id', 'partner_txn_id', 'from', 'to', 'partner', 'reason', 'page', 'constructor', '__proto__', 'token', 'sub_id1', 'sub_id5', 'svc_click_id',
];

/** Per route: a well-formed request of a real caller, which the fuzz then damages or replaces. */
function wellFormed(template: string): { segment: string; parameters: [string, string][]; body: string | null; authorization: string | null } {
  const main = `Bearer ${world.keys.main}`;
  switch (template) {
    case '/v1/locations/search':
      return { segment: '', parameters: [['catalog', 'FULL'], ['q', 'lodz']], body: null, authorization: null };
    case '/v1/locations/resolve':
      return { segment: '', parameters: [['subdivision_code', 'US-CA'], ['city', 'san']], body: null, authorization: null };
    case '/v1/locations/{id}':
      return { segment: '2840', parameters: [['catalog', 'FULL']], body: null, authorization: null };
    case '/v1/offers/query':
      return { segment: '', parameters: [], body: JSON.stringify({ placement_id: world.placements.main, limit: 3, context: { categories: ['shopping'] } }), authorization: main };
    case '/v1/offers/instances':
      return { segment: '', parameters: [], body: JSON.stringify({ offer_instance_ids: [instanceId, '0192f3a0-0000-7000-8000-000000000001'] }), authorization: main };
    case '/v1/offers/info':
      return { segment: '', parameters: [['offer_id', world.offers.rich]], body: null, authorization: main };
    case '/v1/postback/{partner}':
      return { segment: partner, parameters: [['event_name', 'purchase'], ['svc_click_id', clickId], ['event_id', 'fuzz-event']], body: JSON.stringify({ event_name: 'purchase', svc_click_id: clickId, event_id: 'fuzz-event' }), authorization: null };
    case '/l/{code}':
      return { segment: linkCode, parameters: [['sub_id1', 'a']], body: null, authorization: null };
    case '/admin/postbacks':
      return { segment: '', parameters: [['partner', partner]], body: null, authorization: `Bearer ${ADMIN_TOKEN}` };
    case '/admin/commands/{name}':
      return { segment: 'developer:register', parameters: [], body: JSON.stringify({ name: 'Fuzz', email: 'fuzz-event@example.test' }), authorization: `Bearer ${ADMIN_TOKEN}` };
    default:
      return { segment: 'x', parameters: [], body: null, authorization: `Bearer ${ADMIN_TOKEN}` };
  }
}

/** Mostly absent; sometimes one of `values`. */
const rarely = <T>(values: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: values, weight: 1 });

const requests = () => fc.record({
  route: fc.constantFrom(
    ['GET', '/v1/locations/search'], ['GET', '/v1/locations/resolve'], ['GET', '/v1/locations/{id}'], ['POST', '/v1/offers/query'],
    ['POST', '/v1/offers/instances'], ['GET', '/v1/offers/info'], ['POST', '/v1/postback/{partner}'], ['GET', '/v1/postback/{partner}'],
    ['GET', '/l/{code}'], ['GET', '/l/static/{code}'], ['GET', '/admin/postbacks'], ['GET', '/admin/postbacks/{id}'], ['POST', '/admin/commands/{name}'],
    ['GET', '/admin/replays/{id}'], ['POST', '/admin/login'], ['GET', '/healthz'], ['GET', '/readyz'],
  ),
  /** well-formed: as a real caller sends it, with at most the damage below; random: every part drawn. */
  random: fc.boolean(),
  otherMethod: fc.oneof({ arbitrary: fc.constant(null), weight: 9 }, { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'), weight: 1 }),
  segment: rarely(fc.oneof(fc.constantFrom(...realValues()), junk)),
  raw: fc.boolean(),
  parameters: fc.array(fc.tuple(fc.constantFrom(...PARAMETERS), fc.oneof(fc.constantFrom(...realValues()), junk)), { maxLength: 3 }),
  dropParameter: fc.boolean(),
  authorization: rarely(
    fc.oneof(
      fc.constantFrom(`Bearer ${world.keys.mainTest}`, `Bearer ${world.keys.sandbox}`, `Bearer ${world.keys.paused}`, `Bearer ${ADMIN_TOKEN}`, 'Bearer', 'Basic eDp5', ''),
      junk.map((value) => `Bearer ${value}`),
    ),
  ),
  test: rarely(fc.oneof(fc.constantFrom('true', 'false', 'TRUE'), junk)),
  contentType: rarely(fc.oneof(fc.constantFrom('application/json; charset=utf-8', 'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data'), junk)),
  protocol: rarely(junk),
  geo: rarely(fc.tuple(fc.oneof(fc.constantFrom('US', 'XX', 'T1'), junk), fc.oneof(fc.constantFrom('CA', 'ZZ'), junk))),
  body: rarely(
    fc.oneof(
      fc.json({ maxDepth: 3 }),
      fc.dictionary(fc.constantFrom(...PARAMETERS, 'offer_instance_ids', 'placement_id', 'context', 'intent', 'limit'), fc.oneof(fc.constantFrom(...realValues()), junk, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 6 }).map((value) => JSON.stringify(value)),
      fc.uuid().map((eventId) => JSON.stringify({ event_name: 'purchase', svc_click_id: clickId, event_id: eventId, amount: '1.50', currency: 'USD' })),
      junk,
    ),
  ),
  eventId: fc.uuid(),
});

/** The 503 codes each route documents, by path prefix. */
const UNAVAILABLE: Record<string, string[]> = {
  '/v1/offers/info': ['OFFER_INFO_UNAVAILABLE'],
  '/v1/offers/instances': ['OFFER_INSTANCE_UNAVAILABLE'],
  '/v1/offers/query': ['QUERY_UNAVAILABLE'],
  '/v1/postback/': ['POSTBACK_V10_UNAVAILABLE', 'POSTBACK_INTAKE_UNAVAILABLE'],
  '/v1/locations/': ['CATALOG_UNAVAILABLE'],
};

/**
 * Below 500, or a 503 in the envelope with a code the route documents (reference: Errors; README:
 * the postback reasons); answers that code.
 */
function expectNoServerError(template: string, url: string, method: string, response: LightMyRequestResponse, label: string): string | undefined {
  expect(response.statusCode === 503 || response.statusCode < 500, label).toBe(true);
  if (response.statusCode !== 503 || !url.startsWith('/v1/') || method === 'HEAD') return undefined;
  const { code } = JSON.parse(response.body) as { code: string };
  const documented = Object.entries(UNAVAILABLE).find(([prefix]) => template.startsWith(prefix))?.[1] ?? [];
  expect(documented, label).toContain(code);
  return code;
}

async function eventCount(): Promise<number> {
  const { rows } = await t.runtime.db.query<{ count: string }>('SELECT count(*)::text AS count FROM event_log');
  return Number(rows[0]!.count);
}

type FuzzRequest = ReturnType<typeof requests> extends fc.Arbitrary<infer R> ? R : never;

/** The request a drawn input stands for: a well-formed one with the drawn damage, or every part drawn. */
function build(input: FuzzRequest) {
  const [method, template] = input.route as [string, string];
  const base = wellFormed(template);
  const safe = (value: string) => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
  const segment = input.segment ?? (input.random ? 'x' : base.segment);
  const parameters = input.random ? input.parameters : [...base.parameters.slice(input.dropParameter ? 1 : 0), ...input.parameters.slice(0, 1)];
  // A well-formed postback (or registration) gets a new id each time, or every one after the first is a repeat.
  const body = input.body ?? (input.random ? null : base.body?.replace('fuzz-event', input.eventId) ?? null);
  const path = template.replace(/\{(partner|id|code|name)\}/, () => encode(segment, input.raw));
  const query = parameters.map(([name, value]) => `${name}=${encode(name === 'event_id' && value === 'fuzz-event' ? input.eventId : value, input.raw)}`).join('&');
  const headers: Record<string, string> = {};
  const authorization = input.authorization ?? (input.random ? null : base.authorization);
  if (authorization !== null) headers.authorization = safe(authorization);
  if (input.test !== null) headers['x-svc-test'] = safe(input.test);
  const contentType = input.contentType ?? (body === null ? null : 'application/json');
  if (contentType !== null) headers['content-type'] = safe(contentType);
  if (template.startsWith('/v1/postback')) headers['svc-protocol-version'] = safe(input.protocol ?? '1.0');
  if (input.geo !== null) {
    headers['cf-ipcountry'] = safe(input.geo[0]);
    headers['cf-region-code'] = safe(input.geo[1]);
  }
  const sentMethod = input.otherMethod ?? method;
  return {
    template,
    method: sentMethod,
    url: query === '' ? path : `${path}?${query}`,
    headers,
    payload: body !== null && sentMethod !== 'GET' && sentMethod !== 'HEAD' ? body : undefined,
  };
}

/**
 * What light-my-request refuses to build (a header value Node would not send: its TypeError
 * ERR_INVALID_CHAR and kin; a URL it cannot parse): never an answer of the service, which inject
 * resolves with whatever its status.
 */
const isInjectRefusal = (error: unknown) =>
  (error instanceof TypeError && /^ERR_(INVALID_CHAR|INVALID_HTTP_TOKEN|HTTP_INVALID_HEADER_VALUE|INVALID_URL)/.test(String((error as { code?: string }).code))) ||
  /^Invalid URI/.test((error as Error).message);
let refusedByInject = 0;
/** FUZZ_SEED (and FUZZ_PATH) from a failure's report run its counterexample again. */
const replayable = process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}) } : {};
/** Few of the drawn requests may be ones inject cannot send, or the run would test little. */
const expectMostSent = (runs: number) => expect(refusedByInject, `${refusedByInject} of ${runs} requests could not be sent`).toBeLessThan(runs / 5);

describe('any request to any route', () => {
  it('never gets a 500 (a 503 only with its documented code); /v1 answers are envelopes; a refusal appends nothing; what is accepted is applied', async () => {
    const seen = new Map<string, number>();
    refusedByInject = 0;
    await fc.assert(
      fc.asyncProperty(requests(), async (input) => {
        const { template, method, url, headers, payload } = build(input);
        const before = await eventCount();
        let response: LightMyRequestResponse;
        try {
          response = await t.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }), remoteAddress: '127.0.0.1' });
        } catch (error) {
          // inject itself refuses some URLs and headers (as Node's HTTP parser would): not the service's answer.
          if (isInjectRefusal(error)) return void (refusedByInject += 1);
          throw error;
        }
        const label = `${method} ${url.slice(0, 200)} ${JSON.stringify(headers).slice(0, 300)} ${String(payload).slice(0, 200)} → ${response.statusCode} ${response.body.slice(0, 300)}`;
        seen.set(`${template} ${response.statusCode}`, (seen.get(`${template} ${response.statusCode}`) ?? 0) + 1);
        // A 503 is an answer only with the route's documented code (an attribution id minted moments
        // ago, as the world's ids are, may name a card not readable yet: README, postback reasons).
        expectNoServerError(template, url, method, response, label);
        const isJson = String(response.headers['content-type'] ?? '').startsWith('application/json');
        if (url.startsWith('/v1/') && response.statusCode !== 302 && method !== 'HEAD') {
          expect(isJson, label).toBe(true);
          expect(Object.keys(JSON.parse(response.body) as object), label).toEqual(expect.arrayContaining(['code', 'message', 'data', 'extra']));
        }
        if (response.statusCode >= 400 && !template.startsWith('/v1/postback')) expect(await eventCount(), label).toBe(before);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 2_500), ...replayable },
    );
    expectMostSent(Number(process.env.FUZZ_RUNS ?? 2_500));
    if (process.env.FUZZ_RUNS) console.log([...seen].sort().join('\n'));
    // Whatever was accepted (postbacks, clicks, serves) every read model applied: none is stuck.
    await awaitCaughtUp(t.runtime, projections, 30_000);
    // The run reached past the refusals on the main routes (not only 4xx everywhere).
    for (const route of ['/v1/locations/search', '/v1/offers/instances', '/v1/offers/info', '/v1/offers/query']) {
      expect([...seen].some(([key]) => key === `${route} 200`), `${route} answered 200 at least once: ${JSON.stringify([...seen])}`).toBe(true);
    }
  }, 600_000);

  it('with its Postgres sessions ended under it now and then: a 503 envelope at worst, never a 500', async () => {
    const unavailable = new Map<string, number>();
    refusedByInject = 0;
    await fc.assert(
      fc.asyncProperty(requests(), fc.nat(9), async (input, dice) => {
        const { template, method, url, headers, payload } = build(input);
        // Every tenth request or so loses every session of the pool while it runs, as in a Postgres restart.
        let response: LightMyRequestResponse;
        try {
          const answer = t.app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }), remoteAddress: '127.0.0.1' });
          [response] = await Promise.all([answer, dice === 0 ? t.database.dropConnections() : undefined]);
        } catch (error) {
          if (isInjectRefusal(error)) return void (refusedByInject += 1);
          throw error;
        }
        const label = `${method} ${url.slice(0, 200)} → ${response.statusCode} ${response.body.slice(0, 300)}`;
        const code = expectNoServerError(template, url, method, response, label);
        if (code !== undefined) {
          unavailable.set(`${template} ${code}`, (unavailable.get(`${template} ${code}`) ?? 0) + 1);
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 1_000), ...replayable },
    );
    expectMostSent(Number(process.env.FUZZ_RUNS ?? 1_000));
    if (process.env.FUZZ_RUNS) console.log([...unavailable].sort().join('\n'));
  }, 600_000);
});
