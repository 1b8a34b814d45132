import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime } from '../../platform/runtime.js';
import { openPostbackRefusals } from '../../services/api/postback-refusals.js';
import { buildApp } from '../../services/api/app.js';
import { testEnvironment } from '../support/app.js';
import { cuttingProxy } from '../support/cutting-proxy.js';
import type { TestDatabase } from '../support/database.js';
import { ADMIN_TOKEN, HOSTILE_EVENT, HOSTILE_TXN, UNKNOWN_PARTNER, startPostbackPageApp, type PostbackPageWorld } from '../support/postback-page-world.js';

/** The correlation ids of the log rows a page lists, in order. */
const listed = (body: string) => [...body.matchAll(/<tr data-correlation-id="([^"]+)"/g)].map((match) => match[1]!);
/** The href of the page's next or previous link, unescaped. */
const linkOf = (body: string, rel: 'next' | 'prev') => new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(body)?.[1]?.replaceAll('&amp;', '&');
const SIGN_OUT = '<form method="post" action="/admin/logout"><button type="submit">Sign out</button></form>';

describe('the postback log page (inject)', () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  let w: PostbackPageWorld;
  let database: TestDatabase;
  let cookie: string;
  const responses: LightMyRequestResponse[] = [];

  async function get(url: string, headers: Record<string, string> = { cookie }) {
    const response = await app.inject({ method: 'GET', url, headers });
    responses.push(response);
    return response;
  }
  const search = (query: Record<string, string>) => get(`/admin/postbacks?${new URLSearchParams(query)}`);

  beforeAll(async () => {
    ({ app, world: w, close, database } = await startPostbackPageApp());
    const login = await app.inject({ method: 'POST', url: '/admin/login', payload: `token=${encodeURIComponent(ADMIN_TOKEN)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    cookie = login.headers['set-cookie']!.toString().split(';')[0]!;
  });
  afterAll(async () => {
    await close?.();
  });

  describe('sign-in', () => {
    it('answers a page without a session 401 with the sign-in form', async () => {
      const response = await get('/admin/postbacks?decision=accepted', {});
      expect(response.statusCode).toBe(401);
      // A 401 names its scheme (RFC 9110); the pages take the token as a bearer too.
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain('<form method="post" action="/admin/login"');
      expect(response.body).toContain('name="next" value="/admin/postbacks?decision=accepted"');
      expect(listed(response.body)).toEqual([]);
    });

    it('refuses a wrong token without echoing it, and a forged or foreign cookie', async () => {
      const wrong = 'wrong-token-<b>visible</b>-0123456789';
      const response = await app.inject({ method: 'POST', url: '/admin/login', payload: `token=${encodeURIComponent(wrong)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(response.body).toContain('That token was not accepted.');
      expect(response.body).not.toContain('wrong-token');
      expect((await get('/admin/postbacks', { cookie: 'admin_session=v2.9999999999.' + '0'.repeat(64) })).statusCode).toBe(401);
      expect((await get('/admin/postbacks', { cookie: `admin_session=${ADMIN_TOKEN}` })).statusCode).toBe(401);
      expect((await get('/admin/postbacks', { authorization: 'Bearer not-the-token-0123456789abcdef' })).statusCode).toBe(401);
    });

    it('signs in with the token in the body: a signed HttpOnly SameSite=Strict cookie, never the token', async () => {
      const response = await app.inject({
        method: 'POST', url: '/admin/login', payload: new URLSearchParams({ token: ADMIN_TOKEN, next: `/admin/postbacks/${w.posted.accepted}` }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`/admin/postbacks/${w.posted.accepted}`);
      const setCookie = response.headers['set-cookie']!.toString();
      expect(setCookie).toMatch(/^admin_session=v2\.\d+\.[0-9a-f]{64}; Max-Age=28800; Path=\/admin; HttpOnly; SameSite=Strict$/);
      expect(setCookie).not.toContain(ADMIN_TOKEN);
      expect((await get('/admin/postbacks', { cookie: setCookie.split(';')[0]! })).statusCode).toBe(200);
      // Never back to another site.
      const offsite = await app.inject({ method: 'POST', url: '/admin/login', payload: new URLSearchParams({ token: ADMIN_TOKEN, next: '//evil.example/' }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(offsite.headers.location).toBe('/admin/postbacks');
    });

    it('never carries a token pasted into the URL back into the form or the redirect', async () => {
      const response = await get(`/admin/postbacks?decision=accepted&token=${ADMIN_TOKEN}&api_key=x`, {});
      expect(response.statusCode).toBe(401);
      expect(response.body).toContain('name="next" value="/admin/postbacks?decision=accepted"');
      expect(response.body).not.toContain(ADMIN_TOKEN);
      const signIn = await app.inject({
        method: 'POST', url: '/admin/login', payload: new URLSearchParams({ token: ADMIN_TOKEN, next: `/admin/postbacks?admin_token=${ADMIN_TOKEN}` }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(signIn.headers.location).toBe('/admin/postbacks');
    });

    it('refuses a sign-in or sign-out posted from another site (a form elsewhere aimed at this one)', async () => {
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const fromElsewhere = await app.inject({ method: 'POST', url: '/admin/logout', headers: { cookie, 'sec-fetch-site': 'cross-site' } });
      expect(fromElsewhere.statusCode).toBe(403);
      expect(fromElsewhere.headers['set-cookie']).toBeUndefined();
      // A sibling subdomain is same-site but another origin: refused too.
      const fromSibling = await app.inject({ method: 'POST', url: '/admin/logout', headers: { cookie, origin: 'http://evil.localhost', 'sec-fetch-site': 'same-site' } });
      expect(fromSibling.statusCode).toBe(403);
      expect(fromSibling.headers['set-cookie']).toBeUndefined();
      const foreignOrigin = await app.inject({ method: 'POST', url: '/admin/login', payload: `token=${encodeURIComponent(ADMIN_TOKEN)}`, headers: { ...form, origin: 'http://evil.example' } });
      expect(foreignOrigin.statusCode).toBe(403);
      expect(foreignOrigin.headers['set-cookie']).toBeUndefined();
      const sameOrigin = await app.inject({ method: 'POST', url: '/admin/login', payload: `token=${encodeURIComponent(ADMIN_TOKEN)}`, headers: { ...form, origin: 'http://localhost:80', host: 'localhost:80', 'sec-fetch-site': 'same-origin' } });
      expect(sameOrigin.statusCode).toBe(303);
    });

    it('takes the bearer token too (scripts, any case of the scheme), and signs out by clearing the cookie', async () => {
      expect((await get('/admin/postbacks', { authorization: `Bearer ${ADMIN_TOKEN}` })).statusCode).toBe(200);
      expect((await get('/admin/postbacks', { authorization: `bearer ${ADMIN_TOKEN}` })).statusCode).toBe(200);
      const out = await app.inject({ method: 'POST', url: '/admin/logout', headers: { cookie } });
      expect(out.statusCode).toBe(303);
      expect(out.headers['set-cookie']).toMatch(/^admin_session=; Max-Age=0; Path=\/admin; HttpOnly; SameSite=Strict$/);
    });
  });

  describe('addresses no page has', () => {
    it('are answered as pages after the sign-in check: 404 for a path, 405 for another method', async () => {
      for (const path of ['/admin/postbacks/a/b', '/admin/postbacks//']) {
        const response = await get(path);
        expect(response.statusCode, path).toBe(404);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.body, path).toContain('<div class="errors" role="alert">no route for GET /admin/postbacks/');
        expect(response.body, path).toContain(SIGN_OUT);
        const signedOut = await get(path, {});
        expect(signedOut.statusCode).toBe(401);
        expect(signedOut.body).not.toContain(SIGN_OUT);
      }
      const posted = await app.inject({ method: 'POST', url: '/admin/postbacks', headers: { cookie } });
      expect(posted.statusCode).toBe(405);
      expect(posted.headers.allow).toBe('GET, HEAD');
      expect(posted.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(posted.body).toContain(SIGN_OUT);
      // A bearer token is a sign-in too, as on the other pages.
      expect((await get('/admin/postbacks/a/b', { authorization: `Bearer ${ADMIN_TOKEN}` })).body).toContain(SIGN_OUT);
    });

    it('a path that is not valid percent-encoded UTF-8 is a 400 page, with sign-out only for a session; the admin API keeps its envelope', async () => {
      for (const path of ['/admin/postbacks/%FF', '/admin/postbacks/%E2%82?decision=accepted']) {
        const signedIn = await get(path);
        expect(signedIn.statusCode, path).toBe(400);
        expect(signedIn.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(signedIn.headers['content-security-policy']).toMatch(/^default-src 'none'/);
        expect(signedIn.body, path).toContain('<div class="errors" role="alert">the URL path is not valid percent-encoded UTF-8</div>');
        expect(signedIn.body).toContain(SIGN_OUT);
        for (const headers of [{}, { cookie: 'admin_session=v2.9999999999.' + '0'.repeat(64) }] as Record<string, string>[]) {
          const signedOut = await get(path, headers);
          expect(signedOut.statusCode).toBe(400);
          expect(signedOut.headers['content-type']).toBe('text/html; charset=utf-8');
          expect(signedOut.body).not.toContain(SIGN_OUT);
        }
      }
      const api = await get('/admin/replays/%FF', { authorization: `Bearer ${ADMIN_TOKEN}` });
      expect(api.statusCode).toBe(400);
      expect(api.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(api.body)).toEqual({ code: 'BAD_REQUEST', message: 'the URL path is not valid percent-encoded UTF-8', data: {}, extra: {} });
    });
  });

  describe('search', () => {
    it('lists the whole log newest first, with decision, reason, attribution path, payout and log position', async () => {
      const response = await search({});
      expect(response.statusCode).toBe(200);
      // Plain HTML: no script, and nothing loaded from anywhere (its style is inline, its icon a data: URL).
      expect(response.body).not.toMatch(/<script|<[a-z][^>]*\ssrc=|<link(?![^>]*href="data:)/i);
      expect(listed(response.body)).toEqual(w.logOrder);
      const accepted = response.body.slice(response.body.indexOf(`<tr data-correlation-id="${w.posted.accepted}"`)).split('</tr>')[0]!;
      expect(accepted).toContain('<span class="decision accepted">accepted</span>');
      expect(accepted).toContain('recorded and counted: goal <code>install</code>');
      expect(accepted).toMatch(new RegExp(`matched by <b>svc_click_id</b></span> →\\s*<span>click <a class="id" href="/admin/postbacks\\?click_id=${w.clickA}">`));
      expect(accepted).toContain(`card <a class="id" href="/admin/postbacks?instance_id=${w.cards.a.offer_instance_id}">${w.cards.a.offer_instance_id}</a>`);
      expect(accepted).toContain(`offer <span class="id">${w.world.cpaOffer}</span>`);
      expect(accepted).toContain('12.50 USD');
      expect(accepted).toMatch(/<code>postbacks<\/code> partition \d+, offset \d+/);
      expect(accepted).toContain(`<a href="/admin/postbacks/${w.posted.accepted}">conversion</a>`);
      // A duplicate's payout was counted once, by its conversion.
      const duplicate = response.body.slice(response.body.indexOf(`<tr data-correlation-id="${w.posted.duplicate}"`)).split('</tr>')[0]!;
      expect(duplicate).toContain('12.50 USD <span class="muted">(not counted)</span>');
      expect(duplicate).toContain(`<a href="/admin/postbacks/${w.posted.accepted}">conversion</a>`);
    });

    it.each([
      ['correlation id (a duplicate)', () => ({ correlation_id: w.posted.duplicate! }), () => [w.posted.duplicate]],
      ['correlation id of a conversion, with its duplicate and conflict', () => ({ correlation_id: w.posted.accepted! }), () => [w.posted.conflict, w.posted.duplicate, w.posted.accepted]],
      ['partner', () => ({ partner_id: w.world.otherPartner }), () => [w.posted.foreign]],
      ['identity, any field', () => ({ identity: w.ids.event }), () => [w.posted.conflict, w.posted.duplicate, w.posted.accepted]],
      ['identity, order_id', () => ({ identity: w.ids.order, identity_kind: 'order_id' }), () => [w.posted.unmapped]],
      ['identity, the wrong field', () => ({ identity: w.ids.order, identity_kind: 'event_id' }), () => []],
      ['identity, partner_txn_id with markup in it', () => ({ identity: HOSTILE_TXN }), () => [w.posted.hostile]],
      ['click id', () => ({ click_id: w.clickA }), () => [w.posted.conflict, w.posted.duplicate, w.posted.accepted]],
      ['card', () => ({ instance_id: w.cards.b.offer_instance_id }), () => [w.posted.hostile, w.posted.unmapped]],
      ['decision', () => ({ decision: 'identity_conflict' }), () => [w.posted.conflict]],
      ['decision and partner', () => ({ decision: 'unmapped', partner_id: w.world.partner }), () => [w.posted.hostile, w.posted.unmapped]],
    ])('by %s', async (_name, query, expected) => {
      const response = await search(query());
      expect(response.statusCode, response.body).toBe(200);
      const order = new Map(w.logOrder.map((id, index) => [id, index]));
      expect(listed(response.body)).toEqual(expected().sort((a, b) => order.get(a!)! - order.get(b!)!));
    });

    it('by time range: from inclusive, to exclusive, in UTC', async () => {
      const times = w.logRows.map((row) => row.received_at.toISOString());
      const [newest, , third] = times;
      const response = await search({ from: third!, to: newest! });
      const expected = w.logRows.filter((row) => row.received_at.toISOString() >= third! && row.received_at.toISOString() < newest!).map((row) => row.correlation_id);
      expect(expected.length).toBeGreaterThan(0);
      expect(listed(response.body)).toEqual(expected);
    });

    it('says so when nothing matches', async () => {
      const response = await search({ identity: 'no-such-identity' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('No postbacks in the log match this search.');
      expect(listed(response.body)).toEqual([]);
    });

    it('pages by keyset both ways: every row once, in order', async () => {
      const forward: string[] = [];
      let url: string | undefined = '/admin/postbacks?limit=2';
      const pages: string[] = [];
      while (url) {
        const response = await get(url);
        expect(response.statusCode).toBe(200);
        expect(listed(response.body).length).toBeLessThanOrEqual(2);
        forward.push(...listed(response.body));
        pages.push(url);
        url = linkOf(response.body, 'next');
      }
      expect(forward).toEqual(w.logOrder);
      expect(pages.length).toBe(Math.ceil(w.logOrder.length / 2));
      // And back from the last page to the first.
      const backward: string[][] = [];
      let last = await get(pages.at(-1)!);
      backward.unshift(listed(last.body));
      let previous = linkOf(last.body, 'prev');
      while (previous) {
        last = await get(previous);
        backward.unshift(listed(last.body));
        previous = linkOf(last.body, 'prev');
      }
      expect(backward.flat()).toEqual(w.logOrder);
      expect(backward[0]).toEqual(w.logOrder.slice(0, 2));
    });
  });

  describe('bad input', () => {
    it.each([
      ['correlation_id', { correlation_id: 'not-an-id' }],
      ['partner_id', { partner_id: "1' OR '1'='1" }],
      ['click_id', { click_id: '123' }],
      ['instance_id', { instance_id: '{offer_instance_id}' }],
      ['from', { from: 'yesterday' }],
      ['to', { to: '2026-02-30T10:00' }],
      ['to', { from: '2026-11-02T00:00', to: '2026-11-01T00:00' }],
      ['to', { to: '9999-12-31T23:59:59-23:59' }],
      ['from', { from: '9999-12-31T23:30-01:00', to: '9999-12-31T23:59' }],
      ['decision', { decision: 'maybe' }],
      ['limit', { limit: '100000' }],
      ['identity_kind', { identity_kind: 'email' }],
      ['after', { after: 'garbage' }],
      ['before', { before: '2026-11-01T00:00:00.000000Z~not-a-uuid' }],
      // A refusal's position past Redis's 64-bit stream ids (a hand-edited link): Redis would refuse to read from it.
      ['after', { decision: 'refused', after: '99999999999999999999-0' }],
      ['before', { decision: 'refused', before: '1-18446744073709551616' }],
    ])('%s: a 400 page naming it, the form kept', async (field, query) => {
      const response = await search(query as Record<string, string>);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain('<div class="errors" role="alert"><b>The search was not run:</b>');
      // Named, and linked to its control when the form has one (a page position has none).
      const control = field === 'after' || field === 'before' ? field : `<a href="#search-${field}">${field}</a>`;
      expect(response.body).toMatch(new RegExp(`<li id="search-error-\\d+"><b>${control}</b>: `));
      expect(response.body).toContain('<form method="get" action="/admin/postbacks"');
    });

    it('a search text that is not UTF-8 once percent-decoded is a 400 page naming it, not a search for U+FFFD', async () => {
      const response = await get('/admin/postbacks?identity=%ff%fe');
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('<b><a href="#search-identity">identity</a></b>: is not UTF-8 once percent-decoded');
    });

    it('a malformed id in the detail path is a 400 page, an unknown one a 404 page', async () => {
      const malformed = await get('/admin/postbacks/not-a-uuid');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.body).toContain('<b>correlation_id</b>: expected a UUID');
      const unknown = await get('/admin/postbacks/0193b2c4-0000-7000-8000-000000000000');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.body).toContain('is in the log, nor among the refusals kept');
    });
  });

  describe('escaping', () => {
    it('shows partner-supplied markup as text, in the log and in the refusals', async () => {
      const response = await search({});
      expect(response.body).toContain('&lt;img src=x onerror=&quot;document.title=&#39;pwned&#39;&quot;&gt;');
      expect(response.body).toContain('&quot;&gt;&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;');
      expect(response.body).not.toContain(HOSTILE_EVENT);
      expect(response.body).not.toContain(HOSTILE_TXN);
      // No script at all on the page, and a policy that would not run one.
      expect(response.body).not.toMatch(/<script/i);
      expect(response.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; /);
      const detail = await get(`/admin/postbacks/${w.posted.hostile}`);
      expect(detail.statusCode).toBe(200);
      expect(detail.body).not.toMatch(/<script|<img/i);
      expect(detail.body).toContain('&lt;img src=x');
    });
  });

  describe('refusals before the log', () => {
    it('appear under the log, marked as not in the ledger, with a sanitized excerpt', async () => {
      const response = await search({});
      const section = response.body.slice(response.body.indexOf('<h2>Refused before the log</h2>'));
      expect(section).toContain('<b>Not in the ledger.</b>');
      expect(section).toContain(`<code>partner_not_found</code>`);
      expect(section).toContain(w.posted.refusedPartner);
      expect(section).toContain(`<td class="id">${UNKNOWN_PARTNER}</td>`);
      expect(section).toContain('&lt;script&gt;document.title=\\&quot;pwned\\&quot;&lt;/script&gt;');
      expect(section).toContain('<code>invalid_payload</code>');
    });

    it('are listed on their own with decision=refused, searchable by partner, id and time', async () => {
      const all = await search({ decision: 'refused' });
      expect(all.statusCode).toBe(200);
      expect(all.body).toContain('2 refusals on this page');
      expect(listed(all.body)).toEqual([]);
      const byPartner = await search({ decision: 'refused', partner_id: UNKNOWN_PARTNER });
      expect(byPartner.body).toContain(w.posted.refusedPartner);
      expect(byPartner.body).not.toContain(w.posted.refusedPayload);
      const byId = await search({ decision: 'refused', correlation_id: w.posted.refusedPayload! });
      expect(byId.body).toContain('1 refusal on this page');
      const byIdentity = await search({ decision: 'refused', identity: 'refused-2' });
      expect(byIdentity.body).toContain(w.posted.refusedPayload);
      const later = await search({ decision: 'refused', from: new Date(Date.now() + 60_000).toISOString() });
      expect(later.body).toContain('No refusals kept match this search.');
      const paged = await search({ decision: 'refused', limit: '1' });
      const next = linkOf(paged.body, 'next')!;
      expect(next).toMatch(/after=\d+/);
      expect((await get(next)).body).toContain(w.posted.refusedPartner);
    });

    it('are searchable by the card and the click they named', async () => {
      // Both refusals named card A; neither named card B, nor click A (its postbacks were logged).
      const byCard = await search({ decision: 'refused', instance_id: w.cards.a.offer_instance_id });
      expect(byCard.body).toContain('2 refusals on this page');
      for (const query of [{ instance_id: w.cards.b.offer_instance_id }, { click_id: w.clickA }] as Record<string, string>[]) {
        expect((await search({ decision: 'refused', ...query })).body).toContain('No refusals kept match this search.');
      }
    });

    it('page from either end of the id space: nothing older than the first id, nothing newer than the last', async () => {
      for (const query of [{ after: '0-0' }, { before: '18446744073709551615-18446744073709551615' }] as Record<string, string>[]) {
        const response = await search({ decision: 'refused', ...query });
        expect(response.statusCode).toBe(200);
        expect(response.body).toContain('No refusals kept match this search.');
      }
    });

    it('have a detail view marked as not in the ledger', async () => {
      const response = await get(`/admin/postbacks/${w.posted.refusedPartner}`);
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('<h2>Refused postback');
      expect(response.body).toContain('<b>Not in the ledger.</b>');
    });
  });

  describe('detail view', () => {
    it('shows a conflict with the conversion it was compared with, the card and every postback of the identity', async () => {
      const response = await get(`/admin/postbacks/${w.posted.conflict}`);
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('<span class="decision identity_conflict">identity conflict</span>');
      expect(response.body).toContain(`<dt>recorded by</dt><dd><a class="id" href="/admin/postbacks/${w.posted.accepted}">`);
      expect(response.body).toContain('<span class="decision accepted">accepted</span> counted');
      expect(response.body).toContain(`<h2>Card</h2>`);
      expect(response.body).toContain(`href="/admin/postbacks?instance_id=${w.cards.a.offer_instance_id}"`);
      expect(response.body).toContain(`<dt>application</dt><dd><span class="id">${w.world.application}</span>`);
      for (const id of [w.posted.accepted, w.posted.duplicate]) expect(response.body).toContain(`<a class="id" href="/admin/postbacks/${id}">`);
      expect(response.body).toContain('(this one)');
    });
  });

  describe('when the database does not answer (the log locked by another session)', () => {
    it('answers the search and a detail page 503 with a page saying so after the read deadline, not a 500 or a hang', async () => {
      await database.db.transaction(async (tx) => {
        await tx.query('LOCK TABLE postback_log IN ACCESS EXCLUSIVE MODE');
        for (const url of ['/admin/postbacks?decision=accepted', `/admin/postbacks/${w.posted.accepted}`]) {
          const response = await app.inject({ method: 'GET', url, headers: { cookie } });
          expect(response.statusCode, url).toBe(503);
          expect(response.headers['content-type']).toMatch(/^text\/html/);
          expect(response.body).toContain('The postback log cannot be read right now');
          expect(response.body).toContain(SIGN_OUT);
        }
      });
      expect((await get(`/admin/postbacks/${w.posted.accepted}`)).statusCode).toBe(200);
    }, 30_000);
  });

  describe('when the refusals store does not answer (Redis hung or gone)', () => {
    it('still lists the log, saying the refusals cannot be read right now, instead of failing the page', async () => {
      const stack = inject('stack');
      const redisUrl = new URL(stack.redisUrl);
      const proxy = await cuttingProxy({ host: redisUrl.hostname, port: Number(redisUrl.port) });
      redisUrl.port = String(proxy.port);
      const runtime = await openRuntime(loadConfig({ ...testEnvironment(database, `tp${Date.now()}.`, { eventLog: 'sql', env: { ADMIN_TOKEN } }), REDIS_URL: redisUrl.toString() }));
      const behindProxy = await buildApp({ runtime, postbackRefusals: openPostbackRefusals(runtime) });
      try {
        for (const fail of [() => proxy.swallow(), () => proxy.refuse()]) {
          fail();
          const response = await behindProxy.inject({ method: 'GET', url: `/admin/postbacks?partner_id=${w.world.partner}`, headers: { cookie } });
          expect(response.statusCode).toBe(200);
          expect(listed(response.body)).toContain(w.posted.accepted);
          expect(response.body).toContain('The refusals kept outside the log cannot be read right now');
          proxy.heal();
        }
      } finally {
        await behindProxy.close();
        await runtime.close().catch(() => {});
        await proxy.close();
      }
    }, 60_000);
  });

  it('never answered 5xx and never showed the token', () => {
    expect(responses.length).toBeGreaterThan(30);
    for (const response of responses) {
      expect(response.statusCode).toBeLessThan(500);
      expect(response.body).not.toContain(ADMIN_TOKEN);
    }
  });
});
