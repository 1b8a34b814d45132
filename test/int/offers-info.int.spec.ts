import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OfferServed } from '../../schemas/generated/events.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { buildInstanceWorld, commandRunner, DETAILS, refusedCredentials, type CredentialCase, type InstanceWorld, type RunCommand } from '../support/instance-world.js';
import { enc, expectFailure, expectOffer, infoClient, storeRawSnapshot, topicEnds } from '../support/offer-info.js';
import { mintCode } from '../../commands/offers/link-register.js';
import { appendServes, offerServed as servedCard } from '../support/serves.js';

const linkCode = () => mintCode('short_code');

// GET /v1/offers/info on Kafka, the registry, Postgres and Redis: every rule and error row of the
// reference, status equality with the instance route, no writes, cache invalidation by events.
let t: TestRuntime & { app: FastifyInstance };
let projectors: RunningProjectors;
let run: RunCommand;
let world: InstanceWorld;
let client: ReturnType<typeof infoClient>;
/** Registered links of the rich offer, issued to another application. */
const links = {} as Record<'short' | 'instance' | 'static', string>;

const ACTION_FIELDS = { name: DETAILS.action.name, consumer_action: DETAILS.action.consumer_action };
/** The rich offer as an id-only read shows it. */
const richOffer = () => ({
  offer_id: world.offers.rich,
  version: '3.0',
  offer_info: { status: 'active', ...DETAILS.offer_info },
  entity: DETAILS.entity,
  goals: DETAILS.goals,
  material: DETAILS.material,
});

beforeAll(async () => {
  t = await createTestApp({ eventLog: 'kafka' });
  projectors = await startProjectors(t.runtime);
  run = commandRunner(t.runtime);
  world = await buildInstanceWorld(run);
  client = infoClient(t.app);
  const link = async (shape: string) =>
    (await run('link:register', { offer_id: world.offers.rich, shape, application_id: world.apps.other, target_url: 'https://merchant.example/owned' })).url as string;
  links.short = await link('short_code');
  links.instance = await link('instance_uuid');
  links.static = await link('static_path');
});
afterAll(async () => {
  await projectors?.stop();
  await t?.close();
});

const card = (overrides: Partial<OfferServed>  = {}) =>
  servedCard(t.runtime.config.linkBase, { application_id: world.apps.main, offer_id: world.offers.rich, placement_id: world.placements.main, ...overrides });

/** A fresh remote offer (stored status as given) with the snapshots listed, applied before it resolves. */
async function remoteOffer(status = 'active', snapshots: { language?: string; updated_at: string; title: string; active?: boolean }[] = []) {
  const { offer_id } = await run('offer:upsert', { partner_id: world.partner_id, kind: 'remote', status });
  for (const snapshot of snapshots) {
    const { title, ...rest } = snapshot;
    await run('offer:publish-snapshot', { offer_id, ...rest, content: { ...DETAILS, offer_info: { ...DETAILS.offer_info, title } } });
  }
  return offer_id as string;
}

describe('by offer_id', () => {
  it('answers the stored original details of an active local offer as data, without action or offer_instance_id', async () => {
    const offer = expectOffer(await client.byId(world.keys.main, world.offers.rich));
    expect(offer).toEqual(richOffer());
  });

  it('accepts the id in uppercase and answers the canonical lowercase id', async () => {
    expect(expectOffer(await client.byId(world.keys.main, world.offers.rich.toUpperCase())).offer_id).toBe(world.offers.rich);
  });

  it('keeps CPA amount and currency and the CPS rate as the stored strings', async () => {
    const goals = [
      { event: 'install', pricing: { model: 'cpa', amount: '0.10', currency: 'EUR' } },
      { event: 'sale', pricing: { model: 'cps', rate: '12.500' } },
    ];
    const { offer_id } = await run('offer:upsert', { partner_id: world.partner_id, kind: 'local', status: 'active', details: { ...DETAILS, goals } });
    expect(expectOffer(await client.byId(world.keys.main, offer_id)).goals).toEqual(goals);
  });

  it('omits optional fields it has nothing for, never null', async () => {
    const { offer_id } = await run('offer:upsert', {
      partner_id: world.partner_id,
      kind: 'local',
      status: 'active',
      details: { offer_info: DETAILS.offer_info, entity: DETAILS.entity, goals: DETAILS.goals },
    });
    const response = await client.get(world.keys.main, `offerurl=${enc((await run('link:register', { offer_id, shape: 'short_code' })).url)}`);
    const offer = expectOffer(response);
    expect(Object.keys(offer).sort()).toEqual(['action', 'entity', 'goals', 'offer_id', 'offer_info', 'version']);
    expect(Object.keys(offer.action).sort()).toEqual(['payload', 'type']);
    expect(response.body).not.toContain('null');
  });

  it('never lets internals, targeting, the destination, the partner or an owner out', async () => {
    for (const response of [await client.byId(world.keys.main, world.offers.rich), await client.byLink(world.keys.main, links.short)]) {
      expect(response.statusCode).toBe(200);
      for (const secret of ['INTERNAL-', 'merchant.example', 'targeting', world.partner_id, world.apps.other, world.apps.main, 'environment', 'placement']) {
        expect(response.body).not.toContain(secret);
      }
    }
  });

  it.each(['paused', 'pending', 'rejected', 'expired', 'deleted', 'delisted', 'testOnly', 'bare'] as const)('404 NOT_FOUND for a local offer that is %s', async (which) => {
    expectFailure(await client.byId(world.keys.main, world.offers[which]), 404, 'NOT_FOUND');
  });

  it('404 NOT_FOUND for an unknown UUID and for a bare instance id (not canonical offer ids)', async () => {
    const [c] = [card()];
    await appendServes(t.runtime, [c!]);
    expectFailure(await client.byId(world.keys.main, uuidv7()), 404, 'NOT_FOUND');
    expectFailure(await client.byId(world.keys.main, c!.offer_instance_id), 404, 'NOT_FOUND');
  });
});

describe('remote offers', () => {
  it('show the active English snapshot, reported expired, with its language', async () => {
    const offer = expectOffer(await client.byId(world.keys.main, world.offers.remote));
    expect(offer).toEqual({ ...richOffer(), offer_id: world.offers.remote, offer_info: { ...richOffer().offer_info, status: 'expired' }, content_language: 'en' });
  });

  it('prefer an English snapshot (en-*, any case) over a more recent one in another language', async () => {
    const offer_id = await remoteOffer('active', [
      { language: 'EN-gb', updated_at: '2026-01-01T00:00:00Z', title: 'English' },
      { language: 'de', updated_at: '2026-06-01T00:00:00Z', title: 'Deutsch' },
    ]);
    // Shown in the conventional casing of a language tag, whatever case the partner sent.
    expect(expectOffer(await client.byId(world.keys.main, offer_id))).toMatchObject({ offer_info: { title: 'English' }, content_language: 'en-GB' });
  });

  it('otherwise show the most recently updated active snapshot, inactive ones never', async () => {
    const offer_id = await remoteOffer('active', [
      { language: 'fr', updated_at: '2026-01-01T00:00:00Z', title: 'Older' },
      { language: 'de', updated_at: '2026-03-01T00:00:00Z', title: 'Newer' },
      { language: 'en', updated_at: '2026-06-01T00:00:00Z', title: 'Inactive', active: false },
    ]);
    expect(expectOffer(await client.byId(world.keys.main, offer_id))).toMatchObject({ offer_info: { title: 'Newer' }, content_language: 'de' });
  });

  it('break a tie in update time by snapshot id, the same way on every read', async () => {
    const offer_id = await remoteOffer();
    const ids = [uuidv7(), uuidv7()].sort();
    for (const snapshot_id of [...ids].reverse()) {
      await run('offer:publish-snapshot', { offer_id, snapshot_id, language: 'de', updated_at: '2026-01-01T00:00:00Z', content: { ...DETAILS, offer_info: { ...DETAILS.offer_info, title: snapshot_id } } });
    }
    for (let read = 0; read < 3; read += 1) expect(expectOffer(await client.byId(world.keys.main, offer_id)).offer_info.title).toBe(ids[0]);
  });

  it('omit content_language when the selected snapshot\'s language is unknown', async () => {
    const offer_id = await remoteOffer('active', [{ updated_at: '2026-01-01T00:00:00Z', title: 'Unknown language' }]);
    const offer = expectOffer(await client.byId(world.keys.main, offer_id));
    expect(offer.offer_info.title).toBe('Unknown language');
    expect(offer).not.toHaveProperty('content_language');
  });

  it.each(['und', 'UND', 'und-Latn', 'zxx', 'mul'])('omit content_language when the snapshot is tagged %s (BCP 47: undetermined, no linguistic content or several languages: no one known language)', async (language) => {
    const offer_id = await remoteOffer('active', [{ language, updated_at: '2026-01-01T00:00:00Z', title: 'Undetermined' }]);
    const offer = expectOffer(await client.byId(world.keys.main, offer_id));
    expect(offer.offer_info.title).toBe('Undetermined');
    expect(offer).not.toHaveProperty('content_language');
  });

  it.each(['paused', 'expired'] as const)('show details when the offer is %s (serving unavailability or an expired quote does not hide them)', async (status) => {
    const offer_id = await remoteOffer(status, [{ language: 'en', updated_at: '2026-01-01T00:00:00Z', title: 'Still public' }]);
    expect(expectOffer(await client.byId(world.keys.main, offer_id)).offer_info).toMatchObject({ status: 'expired', title: 'Still public' });
  });

  it('404 without an active snapshot, and when deleted, delisted or test-only', async () => {
    expectFailure(await client.byId(world.keys.main, await remoteOffer()), 404, 'NOT_FOUND');
    const inactiveOnly = await remoteOffer('active', [{ language: 'en', updated_at: '2026-01-01T00:00:00Z', title: 'x', active: false }]);
    expectFailure(await client.byId(world.keys.main, inactiveOnly), 404, 'NOT_FOUND');
    for (const flag of ['deleted', 'delisted', 'test_only']) {
      const offer_id = await remoteOffer('active', [{ language: 'en', updated_at: '2026-01-01T00:00:00Z', title: 'x' }]);
      await run('offer:upsert', { offer_id, partner_id: world.partner_id, kind: 'remote', status: 'active', [flag]: true });
      expectFailure(await client.byId(world.keys.main, offer_id), 404, 'NOT_FOUND');
    }
  });

  it('503 OFFER_INFO_UNAVAILABLE when the selected snapshot is malformed (never a partial success), 200 once it is corrected', async () => {
    const offer_id = await remoteOffer('active', [{ language: 'de', updated_at: '2026-01-01T00:00:00Z', title: 'Fine but not preferred' }]);
    const snapshot_id = uuidv7();
    const stored = { offer_id, snapshot_id, language: 'en', active: true, updated_at: Date.parse('2026-02-01T00:00:00Z') };
    const { url } = await run('link:register', { offer_id, shape: 'static_path' });
    for (const content of ['{"offer_info":', '{"offer_info":{"title":"Half"}}', '[]', JSON.stringify({ ...DETAILS, goals: [{ event: 'x', pricing: { model: 'cps' } }] })]) {
      await storeRawSnapshot(t.runtime, { ...stored, content });
      const response = await client.byId(world.keys.main, offer_id);
      expectFailure(response, 503, 'OFFER_INFO_UNAVAILABLE');
      expect(response.body).not.toContain('Half');
      expectFailure(await client.byLink(world.keys.main, url), 503, 'OFFER_INFO_UNAVAILABLE');
    }
    await storeRawSnapshot(t.runtime, { ...stored, content: JSON.stringify({ ...DETAILS, offer_info: { ...DETAILS.offer_info, title: 'Corrected' } }) });
    expect(expectOffer(await client.byId(world.keys.main, offer_id)).offer_info.title).toBe('Corrected');
  });
});

describe('by offerurl', () => {
  it.each(['short', 'instance', 'static'] as const)('locates the offer by a registered %s link of another application; action echoes the link', async (shape) => {
    const offer = expectOffer(await client.byLink(world.keys.main, links[shape]));
    expect(offer).toEqual({ ...richOffer(), action: { type: 'url', payload: { url: links[shape] }, ...ACTION_FIELDS } });
  });

  it('keeps the link\'s own query and fragment byte for byte in action.payload.url; they do not change identity', async () => {
    for (const tail of ['?sub_id1=a%20b&sub_id2=%E2%9C%93', '#frag', '?x=1&y=2#section/a?b', '?', '#', "?q=!$'()*,;=:@/?"]) {
      const submitted = `${links.short}${tail}`;
      const offer = expectOffer(await client.byLink(world.keys.main, submitted));
      expect(offer.offer_id).toBe(world.offers.rich);
      expect(offer.action.payload.url).toBe(submitted);
    }
  });

  it('reads an instance link whose UUID is in uppercase as the same link (a UUID in either case), echoing the link as sent', async () => {
    const code = links.instance.split('/').pop()!;
    const upper = `${links.instance.slice(0, -code.length)}${code.toUpperCase()}`;
    const offer = expectOffer(await client.byLink(world.keys.main, upper));
    expect(offer.offer_id).toBe(world.offers.rich);
    expect(offer.action.payload.url).toBe(upper);
  });

  it('reads an escaped letter or digit of the path as itself, as the link origin does (RFC 3986, 6.2.2.2), echoing the link as sent', async () => {
    const code = links.short.split('/').pop()!;
    const escaped = `${links.short.slice(0, -code.length)}${code.slice(0, 4)}%${code.charCodeAt(4).toString(16).toUpperCase()}${code.slice(5)}`;
    const offer = expectOffer(await client.byLink(world.keys.main, escaped));
    expect(offer.offer_id).toBe(world.offers.rich);
    expect(offer.action.payload.url).toBe(escaped);
  });

  it('resolves the serve-time link of a card from the Query route to the card\'s offer, with the same status', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/offers/query',
      headers: { authorization: `Bearer ${world.keys.main}`, 'content-type': 'application/json' },
      payload: { placement_id: world.placements.main, limit: 10 },
    });
    expect(response.statusCode, response.body).toBe(200);
    const cards = (response.json().data.cards as { offer_id: string; offer_instance_id: string; action?: { payload: { url: string } } }[]).filter((c) => c.action);
    expect(cards.length).toBeGreaterThan(0);
    for (const served of cards) {
      const link = `${served.action!.payload.url}?sub_id1=from-app#x`;
      const offer = expectOffer(await client.byLink(world.keys.main, link));
      expect(offer.offer_id).toBe(served.offer_id);
      expect(offer.action.payload.url).toBe(link);
      const [item] = (await t.app.inject({
        method: 'POST',
        url: '/v1/offers/instances',
        headers: { authorization: `Bearer ${world.keys.main}`, 'content-type': 'application/json' },
        payload: { offer_instance_ids: [served.offer_instance_id] },
      })).json().data.instances;
      expect(offer.offer_info.status).toBe(item.offer.offer_info.status);
    }
  });

  it('resolves a card\'s link whoever calls, whatever the card\'s application or environment', async () => {
    const cards = [card({ application_id: world.apps.other, placement_id: world.placements.other }), card({ environment: 'test' }), card({ environment: 'sandbox', placement_id: null })];
    await appendServes(t.runtime, cards);
    for (const c of cards) {
      const response = await client.byLink(world.keys.limited, c.link_url!);
      expect(expectOffer(response)).toEqual({ ...richOffer(), action: { type: 'url', payload: { url: c.link_url }, ...ACTION_FIELDS } });
      expect(response.body).not.toContain(c.offer_instance_id);
    }
  });

  it('404 NOT_FOUND for a well-formed link of every shape that no link has', async () => {
    const base = t.runtime.config.linkBase;
    for (const link of [`${base}/${linkCode()}`, `${base}/${uuidv7()}`, `${base}/static/st_${linkCode()}`, `${base}/${linkCode()}?x=1#y`]) {
      expectFailure(await client.byLink(world.keys.main, link), 404, 'NOT_FOUND', /tracked link/);
    }
  });

  it('404 NOT_FOUND for the link of an offer that is not public', async () => {
    for (const which of ['paused', 'deleted', 'testOnly'] as const) {
      const { url } = await run('link:register', { offer_id: world.offers[which], shape: 'short_code' });
      // Said of the link the caller sent, not of an id it did not send.
      expectFailure(await client.byLink(world.keys.main, url), 404, 'NOT_FOUND', /^no current public offer is behind this link$/);
    }
  });

  it('shows a remote offer\'s link with action, reported expired', async () => {
    const { url } = await run('link:register', { offer_id: world.offers.remote, shape: 'instance_uuid' });
    expect(expectOffer(await client.byLink(world.keys.main, url))).toMatchObject({
      offer_id: world.offers.remote,
      offer_info: { status: 'expired' },
      content_language: 'en',
      action: { type: 'url', payload: { url }, ...ACTION_FIELDS },
    });
  });
});

describe('offer_id and offerurl together', () => {
  it('answer the offer with action when both name it', async () => {
    const offer = expectOffer(await client.both(world.keys.main, world.offers.rich, `${links.static}?a=1`));
    expect(offer).toEqual({ ...richOffer(), action: { type: 'url', payload: { url: `${links.static}?a=1` }, ...ACTION_FIELDS } });
  });

  it('409 OFFER_INFO_IDENTITY_CONFLICT when they name different offers, even an unknown or hidden one', async () => {
    for (const offerId of [world.offers.remote, world.offers.paused, uuidv7()]) {
      expectFailure(await client.both(world.keys.main, offerId, links.short), 409, 'OFFER_INFO_IDENTITY_CONFLICT');
    }
  });

  it('404 when the link has no mapping, whatever offer_id says', async () => {
    expectFailure(await client.both(world.keys.main, world.offers.rich, `${t.runtime.config.linkBase}/${linkCode()}`), 404, 'NOT_FOUND');
  });
});

describe('400 BAD_REQUEST', () => {
  const base = () => t.runtime.config.linkBase;
  it.each<[string, () => string]>([
    ['no parameter', () => ''],
    ['an empty offer_id', () => 'offer_id='],
    ['an empty offerurl', () => 'offerurl='],
    ['an empty offerurl beside a valid offer_id', () => `offer_id=${world.offers.rich}&offerurl=`],
    ['an invalid UUID', () => 'offer_id=not-a-uuid'],
    ['an upstream offer id', () => 'offer_id=partner-sku-1234'],
    ['a UUID without hyphens', () => `offer_id=${world.offers.rich.replace(/-/g, '')}`],
    ['a tracked link as offer_id', () => `offer_id=${enc(links.short)}`],
    ['a merchant destination', () => `offerurl=${enc('https://merchant.example/landing?campaign=spring')}`],
    ['another origin with a link path', () => `offerurl=${enc(links.short.replace('127.0.0.1', 'localhost'))}`],
    ['another scheme', () => `offerurl=${enc(links.short.replace('http:', 'https:'))}`],
    ['an unsupported path', () => `offerurl=${enc(`${base()}/abc`)}`],
    ['a trailing slash', () => `offerurl=${enc(`${links.short}/`)}`],
    ['a dot segment', () => `offerurl=${enc(`${base()}/x/../${links.short.split('/').pop()}`)}`],
    ['a relative link', () => `offerurl=${enc(`/l/${links.short.split('/').pop()}`)}`],
    ['a bare code', () => `offerurl=${links.short.split('/').pop()}`],
    ['not a URL', () => 'offerurl=hello'],
    ['a link with a space', () => `offerurl=${enc(`${links.short}?a=b c`)}`],
    ['bad percent-encoding', () => `offerurl=${enc(links.short)}%E0%A4%A`],
    ['a repeated parameter', () => `offer_id=${world.offers.rich}&offer_id=${world.offers.rich}`],
    ['an unknown parameter', () => `offer_id=${world.offers.rich}&lang=en`],
    ['a link whose own query was not encoded', () => `offerurl=${links.short}?sub_id1=a&sub_id2=b`],
  ])('for %s', async (_what, query) => {
    expectFailure(await client.get(world.keys.main, query()), 400, 'BAD_REQUEST');
  });
});

describe('authentication, as on the instance route', () => {
  it.each<CredentialCase>(refusedCredentials(() => world))('%s → %i %s', async (_what, key, headers, status, code) => {
    const response = await client.get(key(), `offer_id=${world.offers.rich}`, headers);
    expectFailure(response, status, code);
    // RFC 9110, 11.6.1: a 401 names the scheme that answers it.
    expect(response.headers['www-authenticate']).toBe(status === 401 ? 'Bearer' : undefined);
  });

  it('reads the Bearer scheme in any case, with any number of spaces before the key (RFC 9110, RFC 6750)', async () => {
    for (const authorization of [`bearer ${world.keys.main}`, `BEARER ${world.keys.main}`, `Bearer   ${world.keys.main}`]) {
      expect(expectOffer(await client.get(undefined, `offer_id=${world.offers.rich}`, { authorization })).offer_id).toBe(world.offers.rich);
    }
    expectFailure(await client.get(undefined, `offer_id=${world.offers.rich}`, { authorization: `bearer ${world.keys.mainTest}` }), 401, 'UNAUTHORIZED');
    expectFailure(await client.get(undefined, `offer_id=${world.offers.rich}`, { authorization: `bearer ${world.keys.sandbox}` }), 403, 'PUBLIC_TEST_SCOPE_DENIED');
  });

  it('takes another scheme or a malformed header as a missing key', async () => {
    for (const authorization of [`Basic ${world.keys.main}`, 'Bearer', `Bearer ${world.keys.main} extra`, world.keys.main]) {
      expectFailure(await client.get(undefined, `offer_id=${world.offers.rich}`, { authorization }), 401, 'UNAUTHORIZED');
    }
  });

  it('answers Live and Live Limited applications, a live key with X-SVC-Test included (the route has no test mode)', async () => {
    expect(expectOffer(await client.byId(world.keys.limited, world.offers.rich)).offer_id).toBe(world.offers.rich);
    expect(expectOffer(await client.get(world.keys.main, `offer_id=${world.offers.rich}`, { 'x-svc-test': 'true' })).offer_id).toBe(world.offers.rich);
  });

  it('checks the key before the parameters', async () => {
    expectFailure(await client.get(undefined, ''), 401, 'UNAUTHORIZED');
    expectFailure(await client.get(world.keys.sandbox, 'offer_id=nope'), 403, 'PUBLIC_TEST_SCOPE_DENIED');
  });
});

describe('methods', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const)('%s → 405 with code "405" and Allow: GET', async (method) => {
    const response = await t.app.inject({ method, url: `/v1/offers/info?offer_id=${world.offers.rich}`, headers: { authorization: `Bearer ${world.keys.main}` } });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET');
    if (method !== 'HEAD') expect(response.json()).toEqual({ code: '405', message: expect.any(String), data: {}, extra: {} });
  });

  it('answers 405 before reading any body the request carries (empty, not JSON, unsupported, too large)', async () => {
    const bodies: [Record<string, string>, string][] = [
      [{ 'content-type': 'application/json' }, ''],
      [{ 'content-type': 'application/json' }, '{"offer_id":'],
      [{ 'content-type': 'application/json' }, '{"__proto__": {}}'],
      [{ 'content-type': 'application/xml' }, '<offer/>'],
      [{ 'content-type': 'application/json' }, `"${'x'.repeat(1024 * 1024)}"`],
    ];
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      for (const [headers, payload] of bodies) {
        const response = await t.app.inject({ method, url: `/v1/offers/info?offer_id=${world.offers.rich}`, headers: { authorization: `Bearer ${world.keys.main}`, ...headers }, payload });
        expect(response.statusCode, `${method} ${headers['content-type']} ${payload.slice(0, 20)}`).toBe(405);
        expect(response.headers.allow).toBe('GET');
        expect(response.json()).toEqual({ code: '405', message: expect.any(String), data: {}, extra: {} });
      }
    }
  });
});

describe('the status equals the instance route\'s', () => {
  it('for a card of every status and flag: the same status where details are public, 404 where they are not', async () => {
    const pausedRemote = await remoteOffer('paused', [{ language: 'en', updated_at: '2026-01-01T00:00:00Z', title: 'Paused remote' }]);
    const offers = { ...world.offers, pausedRemote };
    const expected: Record<keyof typeof offers, string | 404> = {
      rich: 'active',
      remote: 'expired',
      pausedRemote: 'expired',
      bare: 404,
      paused: 404,
      pending: 404,
      rejected: 404,
      expired: 404,
      deleted: 404,
      delisted: 404,
      testOnly: 404,
    };
    const cards = Object.values(offers).map((offer_id) => card({ offer_id }));
    await appendServes(t.runtime, cards);
    const instances = (await t.app.inject({
      method: 'POST',
      url: '/v1/offers/instances',
      headers: { authorization: `Bearer ${world.keys.main}`, 'content-type': 'application/json' },
      payload: { offer_instance_ids: cards.map((c) => c.offer_instance_id) },
    })).json().data.instances as { offer: { offer_info: { status: string } } }[];
    for (const [index, [name, offer_id]] of Object.entries(offers).entries()) {
      const cardStatus = instances[index]!.offer.offer_info.status;
      const want = expected[name as keyof typeof offers];
      for (const response of [await client.byId(world.keys.main, offer_id), await client.byLink(world.keys.main, cards[index]!.link_url!)]) {
        if (want === 404) {
          expectFailure(response, 404, 'NOT_FOUND');
        } else {
          expect(cardStatus, name).toBe(want);
          expect(expectOffer(response).offer_info.status, name).toBe(cardStatus);
        }
      }
    }
  });
});

describe('read-only', () => {
  it('appends no event to any topic, however many calls of every kind it answers', async () => {
    const before = await topicEnds(t.runtime);
    const queries = [
      `offer_id=${world.offers.rich}`,
      `offer_id=${world.offers.remote}`,
      `offerurl=${enc(`${links.short}?sub_id1=x`)}`,
      `offerurl=${enc(links.instance)}`,
      `offerurl=${enc(links.static)}`,
      `offer_id=${world.offers.rich}&offerurl=${enc(links.short)}`,
      `offer_id=${world.offers.paused}`,
      `offer_id=${uuidv7()}`,
      `offerurl=${enc(`${t.runtime.config.linkBase}/${linkCode()}`)}`,
      'offer_id=bad',
    ];
    for (let round = 0; round < 30; round += 1) {
      for (const query of queries) expect((await client.get(world.keys.main, query)).statusCode).toBeLessThan(500);
    }
    expect(await topicEnds(t.runtime)).toBe(before);
  });
});

describe('cached answers follow applied events', () => {
  const upsert = (offer_id: string, input: Record<string, unknown>) =>
    run('offer:upsert', { offer_id, partner_id: world.partner_id, kind: 'local', status: 'active', details: DETAILS, ...input });

  it('serves repeated reads from the cache, and reads again after any offers event is applied', async () => {
    const offer_id = uuidv7();
    await upsert(offer_id, {});
    const { url } = await run('link:register', { offer_id, shape: 'short_code' });
    expectOffer(await client.byId(world.keys.main, offer_id));
    expectOffer(await client.byLink(world.keys.main, url));
    // Rows changed behind the projection's back (no event) are not seen: these reads come from the cache.
    await t.database.db.query("UPDATE offers SET title = 'Changed behind the log' WHERE offer_id = $1", [offer_id]);
    expect(expectOffer(await client.byId(world.keys.main, offer_id)).offer_info.title).toBe(DETAILS.offer_info.title);
    expect(expectOffer(await client.byLink(world.keys.main, url)).offer_info.title).toBe(DETAILS.offer_info.title);
    await upsert(uuidv7(), {});
    expect(expectOffer(await client.byId(world.keys.main, offer_id)).offer_info.title).toBe('Changed behind the log');
  });

  it('keeps nothing with OFFER_INFO_CACHE_ENTRIES=0: every request reads the rows', async () => {
    const uncached = await buildApp({ runtime: { ...t.runtime, config: { ...t.runtime.config, offerInfoCacheEntries: 0 } } });
    try {
      const offer_id = uuidv7();
      await upsert(offer_id, {});
      const { url } = await run('link:register', { offer_id, shape: 'short_code' });
      const reads = infoClient(uncached);
      expectOffer(await reads.byId(world.keys.main, offer_id));
      expectOffer(await reads.byLink(world.keys.main, url));
      await t.database.db.query("UPDATE offers SET title = 'Read every time' WHERE offer_id = $1", [offer_id]);
      expect(expectOffer(await reads.byId(world.keys.main, offer_id)).offer_info.title).toBe('Read every time');
      expect(expectOffer(await reads.byLink(world.keys.main, url)).offer_info.title).toBe('Read every time');
    } finally {
      await uncached.close();
    }
  });

  it('reflects a pause, a reactivation and a deletion on the first request after each is applied, by id and by link', async () => {
    const offer_id = uuidv7();
    await upsert(offer_id, {});
    const { url } = await run('link:register', { offer_id, shape: 'static_path' });
    const both = async () => [await client.byId(world.keys.main, offer_id), await client.byLink(world.keys.main, url)];
    for (const response of await both()) expectOffer(response);
    await upsert(offer_id, { status: 'paused' });
    for (const response of await both()) expectFailure(response, 404, 'NOT_FOUND');
    await upsert(offer_id, { status: 'active', details: { ...DETAILS, offer_info: { ...DETAILS.offer_info, title: 'Back' } } });
    for (const response of await both()) expect(expectOffer(response).offer_info.title).toBe('Back');
    await upsert(offer_id, { deleted: true });
    for (const response of await both()) expectFailure(response, 404, 'NOT_FOUND');
  });

  it('reflects a new snapshot and a deactivated one on the first request after each is applied', async () => {
    const offer_id = await remoteOffer('active', [{ language: 'de', updated_at: '2026-01-01T00:00:00Z', title: 'Erste' }]);
    expect(expectOffer(await client.byId(world.keys.main, offer_id)).offer_info.title).toBe('Erste');
    const { snapshot_id } = await run('offer:publish-snapshot', { offer_id, language: 'en', updated_at: '2026-01-02T00:00:00Z', content: { ...DETAILS, offer_info: { ...DETAILS.offer_info, title: 'First' } } });
    expect(expectOffer(await client.byId(world.keys.main, offer_id))).toMatchObject({ offer_info: { title: 'First' }, content_language: 'en' });
    await run('offer:publish-snapshot', { offer_id, snapshot_id, language: 'en', active: false, updated_at: '2026-01-02T00:00:00Z', content: DETAILS });
    expect(expectOffer(await client.byId(world.keys.main, offer_id))).toMatchObject({ offer_info: { title: 'Erste' }, content_language: 'de' });
  });

  it('finds a link registered after it was asked for (an unknown link is never remembered)', async () => {
    const code = linkCode();
    const url = `${t.runtime.config.linkBase}/${code}`;
    expectFailure(await client.byLink(world.keys.main, url), 404, 'NOT_FOUND');
    await run('link:register', { offer_id: world.offers.rich, shape: 'short_code', code });
    expect(expectOffer(await client.byLink(world.keys.main, url)).offer_id).toBe(world.offers.rich);
  });

  it('gives a kept answer only after the caller\'s key passes, the same bytes to every caller, and follows account changes', async () => {
    const developer_id = (await run('developer:register', { name: 'Cached answers dev', email: `cached-${uuidv7()}@info.test` })).developer_id;
    const application_id = (await run('application:register', { developer_id, name: 'cached answers' })).application_id;
    const { key } = await run('api-key:issue', { application_id });
    const query = `offer_id=${world.offers.rich}&offerurl=${enc(`${links.static}?kept=1`)}`;
    const kept = await client.get(world.keys.main, query);
    expectOffer(kept);
    expect((await client.get(key, query)).body).toBe(kept.body);
    expect((await client.get(world.keys.limited, query)).body).toBe(kept.body);
    expectFailure(await client.get(undefined, query), 401, 'UNAUTHORIZED');
    expectFailure(await client.get(world.keys.mainTest, query), 401, 'UNAUTHORIZED');
    expectFailure(await client.get(world.keys.sandbox, query), 403, 'PUBLIC_TEST_SCOPE_DENIED');
    expectFailure(await client.get(world.keys.paused, query), 403, 'APPLICATION_NOT_SERVING');
    expectFailure(await client.get(world.keys.ofSuspendedDeveloper, query), 403, 'DEVELOPER_SUSPENDED');
    await run('application:set-status', { application_id, status: 'paused' });
    expectFailure(await client.get(key, query), 403, 'APPLICATION_NOT_SERVING');
    await run('application:set-status', { application_id, status: 'live_limited' });
    expect((await client.get(key, query)).body).toBe(kept.body);
    await run('developer:set-status', { developer_id, status: 'suspended' });
    expectFailure(await client.get(key, query), 403, 'DEVELOPER_SUSPENDED');
    await run('developer:set-status', { developer_id, status: 'active' });
    expect((await client.get(key, query)).body).toBe(kept.body);
  });

  it('refuses a key on the first request after its revocation is applied', async () => {
    const issued = await run('api-key:issue', { application_id: world.apps.main });
    expectOffer(await client.byId(issued.key, world.offers.rich));
    await run('api-key:revoke', { key_id: issued.key_id });
    expectFailure(await client.byId(issued.key, world.offers.rich), 401, 'UNAUTHORIZED');
  });
});

describe('offerurl parsing through the route (property)', () => {
  it('never answers 5xx; a link of the origin is found with its query and fragment echoed exactly, whatever the encoding', async () => {
    const base = t.runtime.config.linkBase;
    const known = [links.short, links.instance, links.static];
    const uriText = fc.string({ unit: fc.constantFrom(...'abcXYZ019-._~:/?@!$&\'()*+,;=%#[] é\\"<>^`{|}') });
    const encodedPart = fc.string().map(encodeURIComponent);
    const part = fc.oneof({ arbitrary: encodedPart, weight: 3 }, { arbitrary: uriText, weight: 1 });
    const tail = fc.tuple(fc.option(part, { nil: undefined }), fc.option(part, { nil: undefined }));
    const origin = fc.oneof(
      { arbitrary: fc.constant(base), weight: 6 },
      fc.constantFrom(base.replace('http:', 'https:'), base.replace('127.0.0.1', 'localhost'), base.replace(':8080', ':8081'), 'https://merchant.example', base.replace('/l', ''), 'javascript:', ''),
    );
    const path = fc.oneof(
      { arbitrary: fc.constantFrom(...known.map((link) => link.slice(base.length))), weight: 5 },
      fc.constant('').map(() => `/${linkCode()}`),
      fc.uuid().map((id) => `/${id}`),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/).map((token) => `/static/st_${token}`),
      fc.string().map((segment) => `/${segment}`),
      fc.constantFrom('/', '//', '/static/', '/static/st_', '/x/../AbCd1234', '/AbCd1234/'),
    );
    const submitted = fc.tuple(origin, path, tail).map(([o, p, [query, fragment]]) => `${o}${p}${query === undefined ? '' : `?${query}`}${fragment === undefined ? '' : `#${fragment}`}`);
    const encoding = fc.constantFrom<[string, (value: string) => string]>(
      ['encodeURIComponent', encodeURIComponent],
      ['form', (value) => new URLSearchParams({ offerurl: value }).toString().slice('offerurl='.length)],
      ['raw', (value) => value],
      ['twice', (value) => encodeURIComponent(encodeURIComponent(value))],
      ['hash only', (value) => value.replace(/#/g, '%23').replace(/&/g, '%26')],
    );
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(submitted, encoding, fc.boolean(), async (value, [name, encode], withId) => {
        const query = `${withId ? `offer_id=${world.offers.rich}&` : ''}offerurl=${encode(value)}`;
        const response = await client.get(world.keys.main, query);
        seen.set(response.statusCode, (seen.get(response.statusCode) ?? 0) + 1);
        expect(response.statusCode, `${name}: ${query}`).toBeLessThan(500);
        expect([200, 400, 404, 409]).toContain(response.statusCode);
        const body = response.json();
        if (response.statusCode !== 200) {
          expect(body).toEqual({ code: expect.any(String), message: expect.any(String), data: {}, extra: {} });
          return;
        }
        expect(body.data.offer_id).toBe(world.offers.rich);
        if (name === 'encodeURIComponent' || name === 'form') expect(body.data.action.payload.url).toBe(value);
        expect(known.some((link) => body.data.action.payload.url.startsWith(link))).toBe(true);
      }),
      { numRuns: 400 },
    );
    // The generators reach every outcome: found links, links without mapping, and refusals.
    for (const status of [200, 400, 404]) expect(seen.get(status) ?? 0, `answers with ${status}`).toBeGreaterThan(10);
    // Links of the origin that are encoded as one parameter are found with any URI query and fragment, echoed exactly.
    const uriSafe = fc.string({ unit: fc.constantFrom(...'abcXYZ019-._~:/?@!$&\'()*+,;=') });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...known), fc.option(uriSafe, { nil: undefined }), fc.option(uriSafe, { nil: undefined }), async (link, query, fragment) => {
        const value = `${link}${query === undefined ? '' : `?${query}`}${fragment === undefined ? '' : `#${fragment}`}`;
        const offer = expectOffer(await client.byLink(world.keys.main, value));
        expect(offer.action.payload.url).toBe(value);
      }),
      { numRuns: 200 },
    );
  });
});
