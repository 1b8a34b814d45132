import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { v4 as uuidv4, v7 as uuidv7 } from 'uuid';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { POSTBACK_REASONS, type PostbackReason } from '../../commands/postbacks/rejections.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { verifyLedger } from '../../projections/ledger/verify.js';
import { GENESIS_HASH, chainHashV1 } from '../../projections/ledger/chain.js';
import { decisionPartitions, decisionsAfter, type StoredDecision } from '../../projections/ledger/queries.js';
import type { Sql } from '../../platform/db/db.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, testEnvironment, type TestRuntime } from '../support/app.js';
import { cuttingProxy } from '../support/cutting-proxy.js';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime } from '../../platform/runtime.js';
import { expectOneOf50Accepted } from '../support/postback-bursts.js';
import { PROTOCOL, postbackWorld, postPostback } from '../support/postback-world.js';
import { replayProjection } from '../support/replay.js';
import { runCli } from '../support/cli.js';
import { rawHttp } from '../support/raw-http.js';
import { waitFor } from '../support/wait-for.js';
import { appendServe, appendServes, projectedServes } from '../support/serves.js';
import { mintCode } from '../../commands/offers/link-register.js';
import { details } from '../support/serving-fixtures.js';
import { tableChecksum } from '../../platform/projection/checksum.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The README's rule: `rejected` for 4xx, `deferred` when logged but undecided, `unavailable` when nothing was logged, `error` for a 500. */
const expectedResult = (status: number, eventLogged: boolean) => (status < 500 ? 'rejected' : status === 500 ? 'error' : eventLogged ? 'deferred' : 'unavailable');

function expectRejection(response: LightMyRequestResponse, reason: PostbackReason, eventLogged = false) {
  const { status, code, retryable } = POSTBACK_REASONS[reason];
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toEqual({
    code,
    message: reason,
    data: {},
    extra: { result: expectedResult(status, eventLogged), reason, correlation_id: expect.stringMatching(UUID_V7), retryable, event_logged: eventLogged },
  });
  // Byte for byte as the route builds it: the response schemas serialize without dropping, adding or reordering.
  const { result, correlation_id } = body.extra;
  expect(response.body).toBe(JSON.stringify({ code, message: reason, data: {}, extra: { result, reason, correlation_id, retryable, event_logged: eventLogged } }));
}

/** `value` with exactly `keys`, in that order; an absent key shows as "<absent>", so a dropped field fails. */
const ordered = (value: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((key) => [key, Object.hasOwn(value, key) ? value[key] : '<absent>']));

/** A success, byte for byte as the route builds it (key order included). */
function expectSentAsBuilt(response: LightMyRequestResponse) {
  const { data } = response.json();
  const expected = {
    ...ordered(data, ['result', 'correlation_id']),
    attribution: ordered(data.attribution, ['matched_by', 'offer_id', 'offer_instance_id', 'svc_click_id']),
    ledger_position: ordered(data.ledger_position, ['partition', 'offset']),
  };
  expect(response.body).toBe(JSON.stringify({ code: 'SUCCESS', message: '', data: expected, extra: {} }));
}

describe.each([['kafka'], ['sql'], ['embedded']] as const)('postbacks on the %s log', (eventLog) => {
  let t: TestRuntime & { app: Awaited<ReturnType<typeof createTestApp>>['app'] };
  let projectors: RunningProjectors;
  let world: Awaited<ReturnType<typeof postbackWorld>>;
  let n = 0;
  /** A fresh business identity, so tests never share one by accident. */
  const id = (prefix = 'evt') => `${prefix}-${eventLog}-${(n += 1)}-${Date.now()}`;
  const post = (body: unknown, headers?: Record<string, string>, partner = world.partner) => postPostback(t.app, partner, body, headers);
  const conversion = async (correlationId: string) =>
    (await t.runtime.db.query<Record<string, unknown>>('SELECT * FROM conversions WHERE correlation_id = $1', [correlationId])).rows[0];

  beforeAll(async () => {
    t = await createTestApp({ eventLog });
    projectors = await startProjectors(t.runtime);
    world = await postbackWorld(t.runtime);
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  describe('accepted, already recorded, unmapped', () => {
    it('takes a body of 16 KiB and refuses one byte more with 413 payload_too_large, nothing logged', async () => {
      const card = await world.serve(world.cpaOffer);
      // JSON whitespace fills the body out: the postback itself is the same few fields.
      const padded = (bytes: number, identity: string) => {
        const json = JSON.stringify({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: identity });
        return `${json}${' '.repeat(bytes - Buffer.byteLength(json))}`;
      };
      const before = await t.runtime.eventLog.endOffsets('postbacks');
      const over = await post(padded(16 * 1024 + 1, id('too-large')));
      expectRejection(over, 'payload_too_large');
      expect(over.headers['svc-protocol-version']).toBe('1.0');
      expect(await t.runtime.eventLog.endOffsets('postbacks')).toEqual(before);
      const atLimit = await post(padded(16 * 1024, id('at-limit')));
      expect(atLimit.statusCode, atLimit.body).toBe(200);
      expect(atLimit.json().data.result).toBe('accepted');
    });

    it('refuses a link that is no card\'s sent with a card: neither lends the other its application or environment', async () => {
      const code = `st_wall-${id().slice(0, 8)}`;
      await world.admin.run('link:register', { offer_id: world.cpaOffer, shape: 'static_path', code, target_url: 'https://shop.example/wall' });
      const staticClick = await world.clickOn({ shape: 'static_path', code });
      const card = (await world.serve(world.cpaOffer)).offer_instance_id;
      for (const attribution of [{ svc_click_id: staticClick }, { svc_tracking_id: code }]) {
        const response = await post({ event_name: 'purchase', event_id: id(), offer_instance_id: card, ...attribution });
        expectRejection(response, 'attribution_conflict');
        expect(response.headers['svc-error-detail']).toContain('another served card');
      }
      const sameLink = await post({ event_name: 'purchase', event_id: id(), svc_click_id: staticClick, svc_tracking_id: code });
      expect(sameLink.statusCode, sameLink.body).toBe(200);
      expect(sameLink.json().data.attribution).toMatchObject({ matched_by: 'svc_click_id', offer_instance_id: null });
    });

    it('refuses two links of one offer issued to different applications: the conversion would pay one of them', async () => {
      const other = await world.admin.application(await world.admin.developer());
      const [issued, elsewhere] = [`st_app-${id().slice(0, 8)}`, `st_oth-${id().slice(0, 8)}`];
      await world.admin.run('link:register', { offer_id: world.cpaOffer, shape: 'static_path', code: issued, application_id: world.application, target_url: 'https://shop.example/app' });
      await world.admin.run('link:register', { offer_id: world.cpaOffer, shape: 'static_path', code: elsewhere, application_id: other, target_url: 'https://shop.example/app' });
      const clickId = await world.clickOn({ shape: 'static_path', code: issued });
      const response = await post({ event_name: 'purchase', event_id: id(), svc_click_id: clickId, svc_tracking_id: elsewhere });
      expectRejection(response, 'attribution_conflict');
      expect(response.headers['svc-error-detail']).toContain('another application');
    });

    it('attributes by the UUID of a registered root-instance link, the offer_instance_id its link and clicks hand out', async () => {
      const instance = uuidv7();
      await world.admin.run('link:register', { offer_id: world.cpaOffer, shape: 'instance_uuid', code: instance, application_id: world.application, target_url: 'https://shop.example/inst?oid={offer_instance_id}' });
      const clickId = await world.clickOn({ shape: 'instance_uuid', code: instance });
      const byInstance = await post({ event_name: 'purchase', event_id: id(), offer_instance_id: instance });
      expect(byInstance.statusCode, byInstance.body).toBe(200);
      expect(byInstance.json().data.attribution).toEqual({ matched_by: 'offer_instance_id', offer_id: world.cpaOffer, offer_instance_id: instance, svc_click_id: null });
      const echoed = await post({ event_name: 'purchase', event_id: id(), svc_click_id: clickId, offer_instance_id: instance });
      expect(echoed.statusCode, echoed.body).toBe(200);
      expect(echoed.json().data.attribution).toEqual({ matched_by: 'svc_click_id', offer_id: world.cpaOffer, offer_instance_id: instance, svc_click_id: clickId });
      // Another partner's postback for it is refused, as for a served card.
      const foreign = await postPostback(t.app, world.otherPartner, { event_name: 'purchase', event_id: id(), offer_instance_id: instance });
      expectRejection(foreign, 'foreign_attribution');
    });

    it("attributes through a registered link that names a served card as that card: the card's application and environment, with or beside its id", async () => {
      const card = await appendServe(t.runtime, { offer_id: world.cpaOffer, application_id: world.application, environment: 'test' });
      const code = mintCode('short_code');
      await world.admin.run('link:register', { offer_id: world.cpaOffer, shape: 'short_code', code, offer_instance_id: card.offer_instance_id, target_url: 'https://shop.example/reg' });
      const clickId = await world.clickOn({ shape: 'short_code', code });
      const click = (await t.runtime.db.query('SELECT offer_instance_id, application_id, environment FROM clicks WHERE svc_click_id = $1', [clickId])).rows[0];
      expect(click).toEqual({ offer_instance_id: card.offer_instance_id, application_id: world.application, environment: 'test' });
      for (const attribution of [
        { svc_tracking_id: code },
        { svc_tracking_id: code, offer_instance_id: card.offer_instance_id },
        { svc_click_id: clickId, offer_instance_id: card.offer_instance_id },
      ]) {
        const response = await post({ event_name: 'purchase', event_id: id(), ...attribution });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().data.attribution).toMatchObject({ offer_id: world.cpaOffer, offer_instance_id: card.offer_instance_id });
        // A test card's conversion stays a test one, paid to the card's application.
        expect(await conversion(response.json().data.correlation_id)).toMatchObject({ application_id: world.application, environment: 'test' });
      }
    });

    it('explains a refusal naming non-ASCII text in SVC-Error-Detail, escaped', async () => {
      const unknownKey = await post({ event_name: 'purchase', event_id: id(), 'ü😀': '1' });
      expectRejection(unknownKey, 'invalid_payload');
      expect(unknownKey.headers['svc-error-detail']).toContain('\\u00fc\\ud83d\\ude00');
      const euroPath = await t.app.inject({ method: 'POST', url: '/v1/postback/%E2%82%AC', headers: PROTOCOL, payload: JSON.stringify({ event_name: 'purchase', event_id: id(), offer_instance_id: uuidv7() }) });
      expectRejection(euroPath, 'partner_not_found');
      expect(euroPath.headers['svc-error-detail']).toMatch(/^[\x20-\x7e]+$/);
    });

    // The embedded engine answers one session at a time: a lock held to keep the projector (or a
    // read) out would keep everyone out, so these run where the database is a server.
    if (eventLog !== 'embedded') {
      it("waits for a card's link code that is not projected yet: retry while the projection is held back, accepted once it is applied", async () => {
        const identity = id();
        const served = await t.runtime.db.transaction(async (tx) => {
          // The projector cannot write served_instances while this lock is held; reads still work.
          await tx.query('LOCK TABLE served_instances IN EXCLUSIVE MODE');
          const [card] = await appendServes(t.runtime, [{ offer_id: world.cpaOffer, application_id: world.application }], { applied: false });
          const early = await post({ event_name: 'purchase', svc_tracking_id: card!.link_code, event_id: identity });
          expectRejection(early, 'postback_v10_unavailable');
          return card!;
        });
        const late = await post({ event_name: 'purchase', svc_tracking_id: served.link_code, event_id: identity });
        expect(late.statusCode, late.body).toBe(200);
        expect(late.json().data).toMatchObject({ result: 'accepted', attribution: { matched_by: 'svc_tracking_id', offer_instance_id: served.offer_instance_id } });
      });

      it('reference data that does not answer (a table locked by another session): 503 postback_v10_unavailable, nothing logged, then accepted', async () => {
        const card = await world.serve(world.cpaOffer);
        const clickId = await world.click(card);
        const identity = id();
        const before = await t.runtime.eventLog.endOffsets('postbacks');
        await t.runtime.db.transaction(async (tx) => {
          await tx.query('LOCK TABLE clicks IN ACCESS EXCLUSIVE MODE');
          expectRejection(await post({ event_name: 'purchase', svc_click_id: clickId, event_id: identity }), 'postback_v10_unavailable');
        });
        expect(await t.runtime.eventLog.endOffsets('postbacks')).toEqual(before);
        const retried = await post({ event_name: 'purchase', svc_click_id: clickId, event_id: identity });
        expect(retried.statusCode, retried.body).toBe(200);
        expect(retried.json().data.result).toBe('accepted');
      });
    }

    it('accepts a conversion by click id, pays the CPA goal, answers the decision with the protocol header', async () => {
      const card = await world.serve(world.cpaOffer);
      const clickId = await world.click(card);
      const response = await post({ event_name: 'purchase', svc_click_id: clickId, event_id: id() });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['svc-protocol-version']).toBe('1.0');
      const body = response.json();
      expect(body).toEqual({
        code: 'SUCCESS',
        message: '',
        data: {
          result: 'accepted',
          correlation_id: expect.stringMatching(UUID_V7),
          attribution: { matched_by: 'svc_click_id', offer_id: world.cpaOffer, offer_instance_id: card.offer_instance_id, svc_click_id: clickId },
          ledger_position: { partition: expect.any(Number), offset: expect.stringMatching(/^\d+$/) },
        },
        extra: {},
      });
      expectSentAsBuilt(response);
      const row = await conversion(body.data.correlation_id);
      expect(row).toMatchObject({ status: 'accepted', counted: true, goal_event: 'install', payout_amount: '12.50', payout_currency: 'USD', application_id: world.application, svc_click_id: clickId });
    });

    it('answers a resend of the same postback already_recorded with the original correlation id', async () => {
      const card = await world.serve(world.cpaOffer);
      const body = { event_name: 'purchase', offer_instance_id: card.offer_instance_id, order_id: id('order'), amount: '10.00', currency: 'USD' };
      const first = (await post(body)).json();
      expect(first.data.result).toBe('accepted');
      // "10.0" is the same amount as "10.00": the same postback.
      const again = await post({ ...body, amount: '10.0' });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json().data).toEqual({ ...first.data, result: 'already_recorded' });
      const { rows } = await t.runtime.db.query('SELECT decision FROM postback_log WHERE identity_key = $1 ORDER BY log_offset', [JSON.stringify(['order_id', 'purchase', body.order_id])]);
      expect(rows.map((row) => row.decision)).toEqual(['accepted', 'already_recorded']);
    });

    it('takes an IPv4 client on a dual-stack socket (::ffff:127.0.0.1) as its IPv4 address, for the allowlist and the log', async () => {
      const card = await world.serve(world.cpaOffer);
      const response = await postPostback(t.app, world.partner, { event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id() }, {}, { remoteAddress: '::ffff:127.0.0.1' });
      expect(response.statusCode, response.body).toBe(200);
      const logged = await t.runtime.db.query('SELECT source_ip FROM postback_log WHERE correlation_id = $1', [response.json().data.correlation_id]);
      expect(logged.rows).toEqual([{ source_ip: '127.0.0.1' }]);
    });

    it('refuses the same identity with a changed payload: 409 identity_conflict, logged, not counted', async () => {
      const card = await world.serve(world.cpaOffer);
      const body = { event_name: 'purchase', offer_instance_id: card.offer_instance_id, partner_txn_id: id('txn'), amount: '10.00', currency: 'USD' };
      const first = (await post(body)).json();
      const changed = await post({ ...body, amount: '11.00' });
      expectRejection(changed, 'identity_conflict', true);
      const { rows } = await t.runtime.db.query<{ n: string }>('SELECT count(*) AS n FROM conversions WHERE correlation_id = $1', [first.data.correlation_id]);
      expect(rows[0]!.n).toBe('1');
      const logged = await t.runtime.db.query('SELECT decision, original_correlation_id FROM postback_log WHERE correlation_id = $1', [changed.json().extra.correlation_id]);
      expect(logged.rows).toEqual([{ decision: 'identity_conflict', original_correlation_id: first.data.correlation_id }]);
    });

    it('attributes by tracking id (the card link code) and by instance id', async () => {
      const card = await world.serve(world.cpaOffer);
      const byTracking = (await post({ event_name: 'purchase', svc_tracking_id: card.link_code, event_id: id() })).json();
      expect(byTracking.data.attribution).toEqual({ matched_by: 'svc_tracking_id', offer_id: world.cpaOffer, offer_instance_id: card.offer_instance_id, svc_click_id: null });
      const byInstance = (await post({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id() })).json();
      expect(byInstance.data.attribution).toMatchObject({ matched_by: 'offer_instance_id', offer_instance_id: card.offer_instance_id });
      // All three naming the same card agree; the click is the match.
      const clickId = await world.click(card);
      const all = (await post({ event_name: 'purchase', svc_click_id: clickId, svc_tracking_id: card.link_code, offer_instance_id: card.offer_instance_id, event_id: id() })).json();
      expect(all.data.attribution).toEqual({ matched_by: 'svc_click_id', offer_id: world.cpaOffer, offer_instance_id: card.offer_instance_id, svc_click_id: clickId });
    });

    it('takes JSON as every route does: any case, with parameters, a charset UTF-8 reads as sent', async () => {
      const card = await world.serve(world.cpaOffer);
      for (const type of ['Application/JSON; charset=US-ASCII', 'application/json;', 'application/json; charset="utf-8"; foo=bar', 'application/json;charset=utf8']) {
        const response = await post({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id() }, { 'content-type': type });
        expect(response.statusCode, `${type}: ${response.body}`).toBe(200);
      }
    });

    it('pays a CPS goal as rate × amount, exact, rounded half-up to the currency minor unit', async () => {
      const card = await world.serve(world.cpsOffer);
      // 199.99 × 7.5 % = 14.999250 → 15.00; 0.10 × 7.5 % = 0.0075 → 0.01; JPY has no minor unit.
      const cases = [
        ['199.99', 'USD', '15.00'],
        ['0.10', 'USD', '0.01'],
        ['1234', 'JPY', '93'],
        ['1.234', 'BHD', '0.093'],
        // ISO 4217 minor units, where ICU's practical digits differ: IQD has 3, HUF, IDR and COP have 2.
        ['1001', 'IQD', '75.075'],
        ['1001', 'HUF', '75.08'],
        ['1001', 'IDR', '75.08'],
        ['1001', 'COP', '75.08'],
      ] as const;
      for (const [amount, currency, payout] of cases) {
        const response = (await post({ event_name: 'sale', offer_instance_id: card.offer_instance_id, event_id: id(), amount, currency })).json();
        expect(response.data.result, `${amount} ${currency}`).toBe('accepted');
        expect(await conversion(response.data.correlation_id)).toMatchObject({ payout_amount: payout, payout_currency: currency, goal_event: 'sale' });
      }
    });

    it("prices a remote offer's conversion by the goals of the content offer info shows for it", async () => {
      const remote = await world.admin.offer({ partner_id: world.partner, kind: 'remote', internal: { remote_endpoint: 'https://partner.example/offers' } });
      await world.admin.run('offer:publish-snapshot', { offer_id: remote, language: 'en', content: details('remote', { amount: '3.25' }) });
      const card = await world.serve(remote);
      const response = await post({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id() });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().data.result).toBe('accepted');
      expect(await conversion(response.json().data.correlation_id)).toMatchObject({ counted: true, goal_event: 'install', payout_amount: '3.25', payout_currency: 'USD' });
    });

    it('logs an event_name with no goal as unmapped: recorded, not counted', async () => {
      const card = await world.serve(world.cpaOffer);
      const response = await post({ event_name: 'newsletter_signup', offer_instance_id: card.offer_instance_id, event_id: id() });
      expect(response.statusCode, response.body).toBe(200);
      const data = response.json().data;
      expect(data.result).toBe('unmapped');
      expect(await conversion(data.correlation_id)).toMatchObject({ status: 'unmapped', counted: false, goal_event: null, payout_amount: null });
    });

    it("attributes a card whose offer or application stopped serving after it was clicked: a conversion owed is paid, whatever the offer's state now", async () => {
      const offerDetails = details('stopped', { amount: '2.00' });
      const offerOf = async () => world.admin.offer({ partner_id: world.partner, details: offerDetails, destination_url: 'https://shop.example/s' });
      const [pausedOffer, deletedOffer] = [await offerOf(), await offerOf()];
      const suspendedApplication = await world.admin.application(await world.admin.developer());
      const paused = await world.serve(pausedOffer);
      const deleted = await world.serve(deletedOffer);
      const ofSuspended = await appendServe(t.runtime, { offer_id: world.cpaOffer, application_id: suspendedApplication });
      const clicks = [await world.click(paused), await world.click(deleted), await world.click(ofSuspended)];
      const again = { partner_id: world.partner, kind: 'local', details: offerDetails, destination_url: 'https://shop.example/s' };
      await world.admin.run('offer:upsert', { ...again, offer_id: pausedOffer, status: 'paused' });
      await world.admin.run('offer:upsert', { ...again, offer_id: deletedOffer, status: 'active', deleted: true });
      await world.admin.run('application:set-status', { application_id: suspendedApplication, status: 'suspended' });
      for (const [index, clickId] of clicks.entries()) {
        const response = await post({ event_name: 'purchase', svc_click_id: clickId, event_id: id() });
        expect(response.statusCode, `card ${index}: ${response.body}`).toBe(200);
        expect(response.json().data.result).toBe('accepted');
        expect(await conversion(response.json().data.correlation_id)).toMatchObject({ counted: true, svc_click_id: clickId });
      }
    });
  });

  describe('refusals, each with its reason, nothing logged', () => {
    let instance: string;
    let logEndBefore: string[];
    const logEnd = async () => (await t.runtime.eventLog.endOffsets('postbacks')).map((end) => `${end.partition}:${end.offset}`).sort();
    beforeAll(async () => {
      instance = (await world.serve(world.cpaOffer)).offer_instance_id;
      logEndBefore = await logEnd();
    });
    // Whichever of these runs (alone, or in any order), it appends nothing to the log.
    afterEach(async () => {
      expect(await logEnd()).toEqual(logEndBefore);
    });
    const valid = () => ({ event_name: 'purchase', offer_instance_id: instance, event_id: id() });

    it('answers a bad payload exactly as the reference example', async () => {
      for (const body of ['{', '[]', '"x"', JSON.stringify({ ...valid(), extra_field: 1 }), JSON.stringify({ ...valid(), amount: 12.5, currency: 'USD' }), JSON.stringify({ ...valid(), amount: '1e3', currency: 'USD' }), JSON.stringify({ ...valid(), amount: '1.00' }), JSON.stringify({ ...valid(), offer_instance_id: 'not-a-uuid' }), JSON.stringify({ ...valid(), currency: 'usd', amount: '1' })]) {
        const response = await post(body);
        expectRejection(response, 'invalid_payload');
        expect(response.headers['svc-protocol-version']).toBe('1.0');
      }
    });

    it('requires the protocol header exactly, JSON, no query string, no signature headers', async () => {
      expectRejection(await t.app.inject({ method: 'POST', url: `/v1/postback/${world.partner}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(valid()) }), 'unsupported_protocol_version');
      // Exactly 1.0: no other spelling of the same number.
      for (const version of ['1.1', '1', '1.00', '01.0', '1.0.0']) {
        expectRejection(await post(valid(), { 'svc-protocol-version': version }), 'unsupported_protocol_version');
      }
      for (const type of ['text/plain', 'application/jsonp', 'application/json; charset=iso-8859-1', 'application/json; charset=utf-16', 'application/json;charset=']) {
        expectRejection(await post(valid(), { 'content-type': type }), 'unsupported_media_type');
      }
      expectRejection(await post(valid(), { 'content-encoding': 'gzip' }), 'unsupported_media_type');
      expectRejection(await t.app.inject({ method: 'POST', url: `/v1/postback/${world.partner}?event_id=1`, headers: PROTOCOL, payload: JSON.stringify(valid()) }), 'query_parameters_not_allowed');
      // In the reference's header namespace with or without X-, and a partner's own signature header.
      for (const header of ['x-svc-signature', 'x-svc-timestamp', 'x-svc-nonce', 'svc-signature', 'svc-timestamp', 'svc-nonce', 'x-partner-signature', 'x-nonce', 'x-hmac', 'x-svc-hmac', 'x-partner-hmac-sha256', 'x-request-timestamp', 'svc-request-timestamp', 'x-auth-timestamp', 'X-SVC-Timestamp-Ms']) {
        expectRejection(await post(valid(), { [header]: '1' }), 'signature_headers_not_allowed');
      }
      expectRejection(await t.app.inject({ method: 'PUT', url: `/v1/postback/${world.partner}`, headers: PROTOCOL, payload: '{}' }), 'method_not_allowed');
    });

    it('checks the request in the README\'s order when several checks fail: protocol header, content type, query string, signature headers, a content coding, then the body and the partner', async () => {
      const unknownPartner = `/v1/postback/${uuidv7()}`;
      const send = (url: string, headers: Record<string, string>, payload = '{') => t.app.inject({ method: 'POST', url, headers: { ...PROTOCOL, ...headers }, payload });
      const everything = { 'svc-protocol-version': '1.1', 'content-type': 'text/plain', 'x-svc-signature': '1', 'content-encoding': 'gzip' };
      expectRejection(await send(`${unknownPartner}?a=1`, everything), 'unsupported_protocol_version');
      expectRejection(await send(`${unknownPartner}?a=1`, { ...everything, 'svc-protocol-version': '1.0' }), 'unsupported_media_type');
      const { 'content-type': _type, ...queryOnward } = { ...everything, 'svc-protocol-version': '1.0' };
      expectRejection(await send(`${unknownPartner}?a=1`, queryOnward), 'query_parameters_not_allowed');
      expectRejection(await send(unknownPartner, queryOnward), 'signature_headers_not_allowed');
      expectRejection(await send(unknownPartner, { 'content-encoding': 'gzip' }), 'unsupported_media_type');
      expectRejection(await send(unknownPartner, {}), 'invalid_payload');
      expectRejection(await send(unknownPartner, {}, JSON.stringify(valid())), 'partner_not_found');
    });

    it('refuses every other method and every longer path in the postback envelope, with the protocol header', async () => {
      for (const method of ['PUT', 'TRACE', 'QUERY', 'PROPFIND', 'MKCOL'] as const) {
        const response = await t.app.inject({ method, url: `/v1/postback/${world.partner}`, headers: PROTOCOL, payload: JSON.stringify(valid()) });
        expectRejection(response, 'method_not_allowed');
        expect(response.headers.allow).toBe('GET, POST');
        expect(response.headers['svc-protocol-version']).toBe('1.0');
      }
      // Whatever body the wrong method carries: compressed, too large, not JSON.
      for (const [method, headers, payload] of [
        ['PUT', { ...PROTOCOL, 'content-encoding': 'gzip' }, '{}'],
        ['PATCH', PROTOCOL, 'x'.repeat(200_000)],
        ['DELETE', { 'content-type': 'text/plain' }, 'not json'],
      ] as const) {
        const response = await t.app.inject({ method, url: `/v1/postback/${world.partner}`, headers, payload });
        expectRejection(response, 'method_not_allowed');
        expect(response.headers.allow).toBe('GET, POST');
      }
      for (const path of [`${world.partner}/`, `${world.partner}/more`, `${world.partner}/more/and/more`]) {
        const response = await post(valid(), {}, path);
        expectRejection(response, 'partner_not_found');
        expect(response.headers['svc-protocol-version']).toBe('1.0');
      }
      expectRejection(await t.app.inject({ method: 'GET', url: `/v1/postback/${world.partner}/more?event_name=purchase` }), 'partner_not_found');
    });

    it('answers every other method with the protocol header whatever Content-Type it sends, and on a partner id the router cannot decode', async () => {
      // Only GET and a form POST without the header are the compatibility routes; every other method is refused as the current contract refuses.
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      for (const [method, url, headers] of [
        ['PUT', `/v1/postback/${world.partner}`, form],
        ['DELETE', `/v1/postback/${world.partner}`, form],
        ['OPTIONS', `/v1/postback/${world.partner}`, form],
        ['PROPFIND', `/v1/postback/${world.partner}`, form],
        ['HEAD', `/v1/postback/${world.partner}`, form],
        ['PUT', '/v1/postback/%zz', {}],
        ['DELETE', '/v1/postback/%zz', form],
        ['HEAD', '/v1/postback/%zz', {}],
      ] as const) {
        const response = await t.app.inject({ method, url, headers, ...(method === 'PUT' ? { payload: 'event_name=purchase' } : {}) });
        const what = `${method} ${url} ${JSON.stringify(headers)}`;
        expect(response.statusCode, what).toBe(405);
        expect(response.headers.allow, what).toBe('GET, POST');
        expect(response.headers['svc-protocol-version'], what).toBe('1.0');
        if (method !== 'HEAD') expectRejection(response, 'method_not_allowed');
      }
    });

    it('requires an identity and an attribution', async () => {
      expectRejection(await post({ event_name: 'purchase', offer_instance_id: instance }), 'missing_identity');
      expectRejection(await post({ event_name: 'purchase', event_id: id() }), 'missing_attribution');
    });

    it('checks the partner: unknown, disabled, source address not allowed', async () => {
      expectRejection(await post(valid(), {}, uuidv7()), 'partner_not_found');
      const uppercase = await post(valid(), {}, world.partner.toUpperCase());
      expectRejection(uppercase, 'partner_not_found');
      expect(uppercase.headers['svc-error-detail']).toContain(`partner ids are lowercase: post to /v1/postback/${world.partner}`);
      expectRejection(await post(valid(), {}, world.disabledPartner), 'partner_disabled');
      // Enabled is checked before the source address: a disabled partner is told so from anywhere.
      expectRejection(await postPostback(t.app, world.disabledPartner, valid(), {}, { remoteAddress: '198.51.100.9' }), 'partner_disabled');
      const elsewhere = await postPostback(t.app, world.partner, valid(), {}, { remoteAddress: '198.51.100.9' });
      expectRejection(elsewhere, 'source_ip_not_allowed');
    });

    it('tells an unknown old id (terminal) from one minted moments ago (retry)', async () => {
      expectRejection(await post({ ...valid(), offer_instance_id: uuidv4() }), 'attribution_not_found');
      expectRejection(await post({ ...valid(), offer_instance_id: '01890a5d-ac96-774b-bcce-b302099a8057' }), 'attribution_not_found');
      expectRejection(await post({ ...valid(), svc_tracking_id: 'ZZZZZZZZ', offer_instance_id: undefined }), 'attribution_not_found');
      const recent = await post({ ...valid(), svc_click_id: uuidv7(), offer_instance_id: undefined });
      expectRejection(recent, 'postback_v10_unavailable');
      expect(recent.json().extra.retryable).toBe(true);
      expectRejection(await post({ ...valid(), offer_instance_id: uuidv7() }), 'postback_v10_unavailable');
      // That wait saw the read model at the log's end: an id minted more than 30 s before it is
      // no pending write (README, "Read your own writes"), one minted within them may still be.
      expectRejection(await post({ ...valid(), offer_instance_id: uuidv7({ msecs: Date.now() - 31_000 }) }), 'attribution_not_found');
      expectRejection(await post({ ...valid(), offer_instance_id: uuidv7({ msecs: Date.now() - 29_000 }) }), 'postback_v10_unavailable');
    });

    it('refuses ids naming different cards, and another partner\'s card', async () => {
      const other = await world.serve(world.cpaOffer);
      const clickId = await world.click(other);
      expectRejection(await post({ ...valid(), svc_click_id: clickId }), 'attribution_conflict');
      const foreign = await world.serve(world.foreignOffer);
      expectRejection(await post({ ...valid(), offer_instance_id: foreign.offer_instance_id }), 'foreign_attribution');
      expectRejection(await post({ ...valid(), svc_tracking_id: foreign.link_code, offer_instance_id: undefined }), 'foreign_attribution');
      // A click on another partner's card is that partner's to convert, not this one's.
      expectRejection(await post({ ...valid(), svc_click_id: await world.click(foreign), offer_instance_id: undefined }), 'foreign_attribution');
    });

    it('refuses ids naming cards of different offers, or one card and another environment\'s, saying which', async () => {
      const cpa = await world.serve(world.cpaOffer);
      const cps = await world.serve(world.cpsOffer);
      const acrossOffers = await post({ event_name: 'purchase', event_id: id(), offer_instance_id: cpa.offer_instance_id, svc_click_id: await world.click(cps) });
      expectRejection(acrossOffers, 'attribution_conflict');
      expect(acrossOffers.headers['svc-error-detail']).toContain('another offer');
      const testCard = await appendServe(t.runtime, { offer_id: world.cpaOffer, application_id: world.application, environment: 'test' });
      const acrossEnvironments = await post({ event_name: 'purchase', event_id: id(), offer_instance_id: cpa.offer_instance_id, svc_tracking_id: testCard.link_code! });
      expectRejection(acrossEnvironments, 'attribution_conflict');
      expect(acrossEnvironments.headers['svc-error-detail']).toMatch(/another (served card|environment)/);
    });

    it('refuses a conversion whose mapped goal cannot be priced (a goal an older build stored with an unknown currency), terminally', async () => {
      const offerId = await world.admin.offer({ partner_id: world.partner, details: details('legacy-priced', { amount: '2.00' }), destination_url: 'https://shop.example/l' });
      const card = await world.serve(offerId);
      // The offer commands refuse such a price now; a read model built by an older build may still hold one.
      await t.runtime.db.query("UPDATE offer_goals SET currency = 'ABC' WHERE offer_id = $1", [offerId]);
      const refused = await post({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id() });
      expectRejection(refused, 'invalid_goal_pricing');
      expect(refused.statusCode).toBe(422);
      expect(refused.headers['svc-error-detail']).toMatch(new RegExp(`offer ${offerId} goal "install"`));
    });

    it('refuses a CPS conversion without an amount', async () => {
      const card = await world.serve(world.cpsOffer);
      expectRejection(await post({ event_name: 'sale', offer_instance_id: card.offer_instance_id, event_id: id() }), 'missing_amount');
    });
  });

  describe('compatibility routes', () => {
    it('takes GET query parameters with unexpanded macros as absent, and answers without the protocol header', async () => {
      const card = await world.serve(world.cpaOffer);
      const eventId = id();
      const response = await t.app.inject({ method: 'GET', url: `/v1/postback/${world.partner}?event_name=purchase&offer_instance_id=${card.offer_instance_id}&svc_click_id={click_id}&event_id=${eventId}&unknown_param=1` });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['svc-protocol-version']).toBeUndefined();
      expectSentAsBuilt(response);
      const data = response.json().data;
      expect(data).toMatchObject({ result: 'accepted', attribution: { matched_by: 'offer_instance_id' } });
      // The same conversion by the current contract is the same identity.
      const again = await post({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: eventId });
      expect(again.json().data).toMatchObject({ result: 'already_recorded', correlation_id: data.correlation_id });
    });

    it('takes form bodies on POST without the protocol header', async () => {
      const card = await world.serve(world.cpaOffer);
      const response = await t.app.inject({
        method: 'POST',
        url: `/v1/postback/${world.partner}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `event_name=purchase&offer_instance_id=${card.offer_instance_id}&order_id=${id('o')}&amount=5.00&currency=EUR`,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().data.result).toBe('accepted');
      // The protocol header belongs to the current contract's answers only.
      expect(response.headers).not.toHaveProperty('svc-protocol-version');
      expectSentAsBuilt(response);
      expectRejection(await t.app.inject({ method: 'GET', url: `/v1/postback/${world.otherPartner}?event_name=purchase&offer_instance_id=${card.offer_instance_id}&event_id=${id()}` }), 'foreign_attribution');
    });

    it('a GET whose body breaks its framing is refused 400 invalid_payload on the socket and logs nothing: the same postback sent whole is accepted', async () => {
      const card = await world.serve(world.cpaOffer);
      const eventId = id('framing');
      if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      const path = `/v1/postback/${world.partner}?event_name=purchase&offer_instance_id=${card.offer_instance_id}&event_id=${eventId}`;
      const logged = async () => (await t.runtime.eventLog.endOffsets('postbacks')).map((end) => `${end.partition}:${end.offset}`).sort();
      const before = await logged();
      const refused = await rawHttp(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n`);
      expect(refused.status, refused.body).toBe(400);
      expect(JSON.parse(refused.body)).toMatchObject({ extra: { reason: 'invalid_payload', event_logged: false } });
      // A postback's slot is held until its answer is sent and its intake (had it begun) has ended.
      await waitFor(async () => (await t.runtime.metrics.postbacksInFlight.get()).values[0]?.value === 0, { what: 'no postback under way' });
      expect(await logged()).toEqual(before);
      const whole = await t.app.inject({ method: 'GET', url: path });
      expect(whole.statusCode, whole.body).toBe(200);
      expect(whole.json().data.result).toBe('accepted');
    });

    it("reads a form POST's query string with its body: a parameter in both is given twice, so invalid_payload, never one of them", async () => {
      const card = await world.serve(world.cpaOffer);
      const form = (query: string, payload: string) =>
        t.app.inject({ method: 'POST', url: `/v1/postback/${world.partner}?${query}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
      const split = await form(`event_name=purchase&order_id=${id('o')}`, `offer_instance_id=${card.offer_instance_id}`);
      expect(split.statusCode, split.body).toBe(200);
      expect(split.json().data.result).toBe('accepted');
      const twice = await form(`order_id=${id('o')}`, `event_name=purchase&offer_instance_id=${card.offer_instance_id}&order_id=${id('o')}`);
      expectRejection(twice, 'invalid_payload');
      expect(twice.headers['svc-error-detail']).toBe('order_id: is given 2 times; send it once');
    });

    it('reads percent-escapes and form bytes as UTF-8 and refuses what is not UTF-8, so two order ids never become one', async () => {
      const card = await world.serve(world.cpaOffer);
      const order = id('utf8');
      const get = (query: string) => t.app.inject({ method: 'GET', url: `/v1/postback/${world.partner}?event_name=purchase&offer_instance_id=${card.offer_instance_id}&${query}` });
      const form = (payload: Buffer) => t.app.inject({ method: 'POST', url: `/v1/postback/${world.partner}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
      // Escaped UTF-8, `+` as a space and a `%` without hex digits after it, as URLSearchParams reads them.
      const accepted = await get(`order_id=${order}-%C3%A9+50%off`);
      expect(accepted.statusCode, accepted.body).toBe(200);
      const again = await post({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, order_id: `${order}-é 50%off` });
      expect(again.json().data).toMatchObject({ result: 'already_recorded', correlation_id: accepted.json().data.correlation_id });
      // Raw UTF-8 bytes in a form body are that text too.
      const formAgain = await form(Buffer.concat([Buffer.from(`event_name=purchase&offer_instance_id=${card.offer_instance_id}&order_id=${order}-`), Buffer.from('é 50%off', 'utf8')]));
      expect(formAgain.json().data).toMatchObject({ result: 'already_recorded', correlation_id: accepted.json().data.correlation_id });

      const logEnd = async () => (await t.runtime.eventLog.endOffsets('postbacks')).map((end) => `${end.partition}:${end.offset}`).sort();
      const before = await logEnd();
      for (const [query, named] of [[`order_id=${order}-%FF`, 'order_id'], [`order_id=${order}-%C0%AF`, 'order_id'], [`order%FF=1&order_id=${order}-x`, 'order']]) {
        const refused = await get(query!);
        expectRejection(refused, 'invalid_payload');
        expect(refused.headers['svc-error-detail']).toBe(`${named}: is not UTF-8 once percent-decoded; encode the text as UTF-8 before percent-encoding it`);
      }
      const latin1 = await form(Buffer.concat([Buffer.from(`event_name=purchase&offer_instance_id=${card.offer_instance_id}&order_id=${order}-`), Buffer.from([0xe9])]));
      expectRejection(latin1, 'invalid_payload');
      // A form declared in another charset (or in two) would be read as text it is not.
      for (const type of ['application/x-www-form-urlencoded; charset=latin1', 'application/x-www-form-urlencoded; charset=utf-8; charset=latin1']) {
        const declared = await t.app.inject({ method: 'POST', url: `/v1/postback/${world.partner}`, headers: { 'content-type': type }, payload: `event_name=purchase&offer_instance_id=${card.offer_instance_id}&order_id=${order}-%E9` });
        expectRejection(declared, 'unsupported_media_type');
      }
      expect(await logEnd()).toEqual(before);
    });

    it('refuses a signature, timestamp or nonce header as the current route does (no postback route checks one), recording nothing', async () => {
      const card = await world.serve(world.cpaOffer);
      const logEnd = async () => (await t.runtime.eventLog.endOffsets('postbacks')).map((end) => `${end.partition}:${end.offset}`).sort();
      const before = await logEnd();
      const fields = `event_name=purchase&offer_instance_id=${card.offer_instance_id}&order_id=${id('signed')}`;
      for (const header of ['x-signature', 'x-timestamp', 'x-nonce', 'x-svc-hmac']) {
        const get = await t.app.inject({ method: 'GET', url: `/v1/postback/${world.partner}?${fields}`, headers: { [header]: 'deadbeef' } });
        expectRejection(get, 'signature_headers_not_allowed');
        expect(get.headers['svc-protocol-version'], header).toBeUndefined();
        const form = await t.app.inject({ method: 'POST', url: `/v1/postback/${world.partner}`, headers: { 'content-type': 'application/x-www-form-urlencoded', [header]: 'deadbeef' }, payload: fields });
        expectRejection(form, 'signature_headers_not_allowed');
        expect(form.headers['svc-protocol-version'], header).toBeUndefined();
      }
      expect(await logEnd()).toEqual(before);
    });
  });

  describe('exactly once', () => {
    it('50 concurrent copies of one postback: one accepted, 49 already_recorded, one ledger row', async () => {
      const card = await world.serve(world.cpaOffer);
      const body = { event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id('burst') };
      await expectOneOf50Accepted((sent) => post(sent), body);
      const { rows } = await t.runtime.db.query<{ n: string }>('SELECT count(*) AS n FROM conversions WHERE event_id = $1', [body.event_id]);
      expect(rows[0]!.n).toBe('1');
    });

    it('replaying the postbacks topic rebuilds identical decisions and a chain that verifies', async () => {
      // The file's earlier tests left decisions of every kind: the rebuild has them all to get right.
      const kinds = await t.runtime.db.query<{ decision: string }>('SELECT DISTINCT decision FROM postback_log ORDER BY decision');
      expect(kinds.rows.map((row) => row.decision)).toEqual(expect.arrayContaining(['accepted', 'already_recorded', 'identity_conflict', 'unmapped']));
      const before = await Promise.all(ledgerProjection.tables.map((table) => tableChecksum(t.runtime.db, table)));
      expect((await verifyLedger(t.runtime.db)).breaks).toEqual([]);
      await projectors.stop();
      try {
        await replayProjection(t.runtime.db, t.runtime.eventLog, ledgerProjection);
      } finally {
        projectors = await startProjectors(t.runtime);
      }
      expect(await Promise.all(ledgerProjection.tables.map((table) => tableChecksum(t.runtime.db, table)))).toEqual(before);
    });

    it.each([
      ['a reported field of a decision (amount, order id)', "UPDATE postback_log SET amount = coalesce(amount, 0) + 1000, order_id = 'EVIL' WHERE correlation_id = $1", 'break', /does not match its fingerprint/],
      ['its time, below the millisecond', "UPDATE postback_log SET received_at = received_at + interval '1 microsecond' WHERE correlation_id = $1", 'break', /hash does not match/],
      ['whether a conversion counts', 'UPDATE conversions SET counted = NOT counted WHERE correlation_id = $1', 'conversion', undefined],
      ['a conversion column', "UPDATE conversions SET order_id = 'EVIL', application_id = NULL WHERE correlation_id = $1", 'conversion', undefined],
      ['who a decision pays, with its conversion', "WITH decision AS (UPDATE postback_log SET application_id = NULL WHERE correlation_id = $1) UPDATE conversions SET application_id = NULL WHERE correlation_id = $1", 'break', /hash does not match/],
      ['how a decision was attributed and where it came from', "UPDATE postback_log SET matched_by = 'svc_click_id', channel = 'compat_get', source_ip = '198.51.100.66', identity_kind = 'order_id' WHERE correlation_id = $1", 'break', /hash does not match/],
      ['a conversion removed', 'DELETE FROM conversions WHERE correlation_id = $1', 'conversion', undefined],
      // Equal as numbers, not as money written in the currency's minor units.
      ["a conversion's payout written with more decimal places", 'UPDATE conversions SET payout_amount = payout_amount::numeric(40, 6) WHERE correlation_id = $1', 'conversion', undefined],
    ] as const)('ledger verification finds %s changed', async (_what, tamper, found, problem) => {
      const { rows } = await t.runtime.db.query<{ correlation_id: string }>(
        // One that pays an application, so taking it away changes the decision.
        "SELECT correlation_id FROM postback_log WHERE decision = 'accepted' AND application_id IS NOT NULL ORDER BY log_partition, log_offset LIMIT 1",
      );
      const target = rows[0]!.correlation_id;
      // Tampered inside a transaction that is rolled back: the ledger itself is never left changed.
      const rollback = new Error('rollback');
      let report: Awaited<ReturnType<typeof verifyLedger>> | undefined;
      await t.runtime.db
        .transaction(async (tx) => {
          await tx.query(tamper, [target]);
          report = await verifyLedger(tx);
          throw rollback;
        })
        .catch((error: unknown) => {
          if (error !== rollback) throw error;
        });
      if (found === 'break') expect(report!.breaks).toContainEqual(expect.objectContaining({ correlation_id: target, problem: expect.stringMatching(problem!) }));
      else expect(report!.conversionsOffChain.map((row) => row.correlation_id)).toContain(target);
      const clean = await verifyLedger(t.runtime.db);
      expect([clean.breaks, clean.conversionsOffChain]).toEqual([[], []]);
    });

    it('ledger verification tells a ledger hashed by the earlier version from a changed one', async () => {
      const [partition] = await decisionPartitions(t.runtime.db);
      const [first] = await decisionsAfter(t.runtime.db, partition!, '-1', 1);
      const rollback = new Error('rollback');
      let report: Awaited<ReturnType<typeof verifyLedger>> | undefined;
      await t.runtime.db
        .transaction(async (tx) => {
          // The first decision as the earlier version hashed it (the rest of its chain then breaks at it).
          await tx.query('UPDATE postback_log SET hash = $2 WHERE correlation_id = $1', [first!.correlation_id, chainHashV1(GENESIS_HASH, first!)]);
          report = await verifyLedger(tx);
          throw rollback;
        })
        .catch((error: unknown) => {
          if (error !== rollback) throw error;
        });
      expect(report!.breaks).toContainEqual(expect.objectContaining({
        correlation_id: first!.correlation_id,
        problem: expect.stringMatching(/earlier version.*npm run replay -- --projection ledger --swap/),
      }));
    });

    it.each([
      // The decision after the removed one no longer follows the chain.
      ['removed', async (tx: Sql, decisions: StoredDecision[]) => {
        await tx.query('DELETE FROM postback_log WHERE correlation_id = $1', [decisions[0]!.correlation_id]);
        return { offset: decisions[1]!.log_offset, correlation_id: decisions[1]!.correlation_id };
      }],
      // A copy of the partition's last decision appended after it, under an id of its own.
      ['inserted', async (tx: Sql, decisions: StoredDecision[]) => {
        const last = decisions[decisions.length - 1]!;
        const copy = { offset: (BigInt(last.log_offset) + 1n).toString(), correlation_id: uuidv7() };
        await tx.query('CREATE TEMP TABLE inserted_decision ON COMMIT DROP AS SELECT * FROM postback_log WHERE correlation_id = $1', [last.correlation_id]);
        await tx.query('UPDATE inserted_decision SET correlation_id = $1, original_correlation_id = $1, log_offset = $2::bigint', [copy.correlation_id, copy.offset]);
        await tx.query('INSERT INTO postback_log SELECT * FROM inserted_decision');
        return copy;
      }],
    ] as const)('ledger verification says a decision was %s, where the chain breaks', async (_what, tamper) => {
      // One postback more than the topic has partitions: some partition holds two decisions at least.
      const card = await world.serve(world.cpaOffer);
      const partitions = (await t.runtime.eventLog.endOffsets('postbacks')).length;
      for (let sent = 0; sent <= partitions; sent += 1) {
        expect((await post({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, order_id: id('chain') })).json().data.result).toBe('accepted');
      }
      const { rows } = await t.runtime.db.query<{ log_partition: number }>(
        'SELECT log_partition FROM postback_log WHERE offer_instance_id = $1 GROUP BY log_partition ORDER BY count(*) DESC, log_partition LIMIT 1',
        [card.offer_instance_id],
      );
      const partition = rows[0]!.log_partition;
      const decisions = await decisionsAfter(t.runtime.db, partition, '-1', 10_000);
      expect(decisions.length).toBeGreaterThan(1);
      const rollback = new Error('rollback');
      let report: Awaited<ReturnType<typeof verifyLedger>> | undefined;
      let broken: { offset: string; correlation_id: string } | undefined;
      await t.runtime.db
        .transaction(async (tx) => {
          broken = await tamper(tx, decisions);
          report = await verifyLedger(tx);
          throw rollback;
        })
        .catch((error: unknown) => {
          if (error !== rollback) throw error;
        });
      expect(report!.breaks).toContainEqual({ partition, ...broken!, problem: expect.stringMatching(/does not follow the previous decision.*removed, inserted or changed/) });
    });

    // The command opens the database itself: on the embedded default this process owns DATA_DIR,
    // and the command is refused while it does (README, "One owner of DATA_DIR").
    if (eventLog !== 'embedded') {
      it('npm run ledger:verify fails on a conversion changed alone, its chain of decisions intact', async () => {
        const card = await world.serve(world.cpaOffer);
        const response = await post({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, order_id: id('off-chain') });
        const target = response.json().data.correlation_id as string;
        const env = { DATABASE_URL: t.database.url, KEY_HASH_SECRET: t.config.keyHashSecret!, LOG_LEVEL: 'silent' };
        await t.runtime.db.query('UPDATE conversions SET counted = NOT counted WHERE correlation_id = $1', [target]);
        try {
          const cli = await runCli('projections/ledger/verify-cli.ts', [], env);
          expect(cli.stdout).not.toContain('BROKEN partition');
          expect(cli.stdout).toContain(`BROKEN conversion ${target} `);
          expect(cli.status, cli.stderr).toBe(1);
        } finally {
          await t.runtime.db.query('UPDATE conversions SET counted = NOT counted WHERE correlation_id = $1', [target]);
        }
      });
    }

    it('ledger verification names the first changed decision', async () => {
      const report = await verifyLedger(t.runtime.db);
      expect(report.breaks).toEqual([]);
      expect(report.conversionsOffChain).toEqual([]);
      const { rows } = await t.runtime.db.query<{ correlation_id: string; log_partition: number; log_offset: string }>(
        "SELECT correlation_id, log_partition, log_offset::text AS log_offset FROM postback_log WHERE decision = 'accepted' AND payout_amount IS NOT NULL ORDER BY log_partition, log_offset LIMIT 1",
      );
      const target = rows[0]!;
      await t.runtime.db.query('UPDATE postback_log SET payout_amount = payout_amount + 1 WHERE correlation_id = $1', [target.correlation_id]);
      try {
        const tampered = await verifyLedger(t.runtime.db);
        expect(tampered.breaks).toEqual([{ partition: target.log_partition, offset: target.log_offset, correlation_id: target.correlation_id, problem: expect.stringContaining('changed') }]);
        expect(tampered.conversionsOffChain.map((row) => row.correlation_id)).toContain(target.correlation_id);
        // The command line says the same, and fails (on either log: it reads the ledger's tables
        // only), where it can open the database beside this process.
        if (eventLog !== 'embedded') {
          const cli = await runCli('projections/ledger/verify-cli.ts', [], { DATABASE_URL: t.database.url, KEY_HASH_SECRET: t.config.keyHashSecret!, LOG_LEVEL: 'silent' });
          expect(cli.status, cli.stderr).toBe(1);
          expect(cli.stdout).toContain(`BROKEN partition ${target.log_partition} at offset ${target.log_offset} (correlation id ${target.correlation_id})`);
        }
      } finally {
        await t.runtime.db.query('UPDATE postback_log SET payout_amount = payout_amount - 1 WHERE correlation_id = $1', [target.correlation_id]);
      }
      expect((await verifyLedger(t.runtime.db)).breaks).toEqual([]);
      if (eventLog === 'embedded') return;
      const cli = await runCli('projections/ledger/verify-cli.ts', [], { DATABASE_URL: t.database.url, KEY_HASH_SECRET: t.config.keyHashSecret!, LOG_LEVEL: 'silent' });
      expect(cli.status, cli.stderr).toBe(0);
      expect(cli.stdout).toMatch(/^ledger verifies: \d+ decisions in \d+ partition\(s\)$/m);
      // Not a terminal: the progress is whole lines, none run into the next.
      expect(cli.stderr).toMatch(/^(partition \d+: \d+ decisions checked\n)+$/);
    });
  });

  describe('when the ledger does not decide in time', () => {
    it('answers 503 postback_intake_unavailable with event_logged true; the retry gets already_recorded', async () => {
      const card = await world.serve(world.cpaOffer);
      const body = { event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id('deferred') };
      const impatient = await buildApp({ runtime: { ...t.runtime, config: { ...t.runtime.config, postbackDecisionTimeoutMs: 10 } } });
      await projectors.stop();
      let deferred;
      try {
        deferred = await postPostback(impatient, world.partner, body);
      } finally {
        projectors = await startProjectors(t.runtime);
        await impatient.close();
      }
      expectRejection(deferred, 'postback_intake_unavailable', true);
      expect(deferred.json().extra).toMatchObject({ result: 'deferred', retryable: true });
      expect(deferred.headers['retry-after']).toBe('1');
      // It was logged: once the ledger catches up, the retry is the recorded conversion.
      const retry = await post(body);
      expect(retry.statusCode, retry.body).toBe(200);
      expect(retry.json().data).toMatchObject({ result: 'already_recorded', correlation_id: deferred.json().extra.correlation_id });
    });
  });

  describe('in a process started while the projectors are behind', () => {
    it('a card served minutes ago and not applied yet is 503 postback_v10_unavailable, never attribution_not_found; accepted once applied', async () => {
      await projectors.stop();
      let early;
      // Its UUIDv7 says it was minted five minutes ago; it is logged, not projected.
      const offer_instance_id = uuidv7({ msecs: Date.now() - 5 * 60_000 });
      const body = { event_name: 'purchase', offer_instance_id, event_id: id('behind') };
      try {
        await appendServes(t.runtime, [{ offer_id: world.cpaOffer, application_id: world.application, offer_instance_id }], { applied: false });
        // A runtime of its own knows nothing of the read models yet, as a process just started.
        const restarted = await buildApp({ runtime: { ...t.runtime } });
        try {
          early = await postPostback(restarted, world.partner, body);
        } finally {
          await restarted.close();
        }
      } finally {
        projectors = await startProjectors(t.runtime);
      }
      expectRejection(early!, 'postback_v10_unavailable');
      // The card was logged now under an id of five minutes ago: wait for it, as a real one would not need.
      await projectedServes(t.runtime, [offer_instance_id]);
      const late = await post(body);
      expect(late.statusCode, late.body).toBe(200);
      expect(late.json().data.result).toBe('accepted');
    });
  });

  describe('a failure of the code itself before intake', () => {
    it('answers 500 internal_error, retryable, event_logged false, and logs nothing', async () => {
      const card = await world.serve(world.cpaOffer);
      const logEnd = async () => (await t.runtime.eventLog.endOffsets('postbacks')).map((end) => `${end.partition}:${end.offset}`).sort();
      const before = await logEnd();
      const { db } = t.runtime;
      // The offer read fails the way a bug does (not the way an unreachable database does).
      const query = ((text: string, params?: unknown[]) =>
        /FROM offers o WHERE/.test(text) ? Promise.reject(new TypeError("Cannot read properties of undefined (reading 'goals')")) : db.query(text, params)) as typeof db.query;
      const buggy = await buildApp({ runtime: { ...t.runtime, db: { ...db, query } } });
      let answer;
      try {
        answer = await postPostback(buggy, world.partner, { event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id('bug') });
      } finally {
        await buggy.close();
      }
      expectRejection(answer, 'internal_error');
      expect(answer.json().extra.retryable).toBe(true);
      expect(await logEnd()).toEqual(before);
    });
  });

  // A database server whose connection is cut: the embedded engine runs in this process.
  if (eventLog !== 'embedded') {
    describe('when the database drops between the append and the decision', () => {
      it('answers 503 postback_intake_unavailable with event_logged true (never 500 "nothing logged"); the retry gets already_recorded', async () => {
        const card = await world.serve(world.cpaOffer);
        const body = { event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id('wait-fails') };
        // An API whose database sessions go through a proxy, cut once its append is acknowledged:
        // the wait for the decision (its first, so it reads the ledger's positions) meets a dead database.
        const proxy = await cuttingProxy({ host: new URL(t.database.url).hostname, port: Number(new URL(t.database.url).port || 5432) });
        const proxiedUrl = new URL(t.database.url);
        proxiedUrl.host = `127.0.0.1:${proxy.port}`;
        const cutRuntime = await openRuntime(loadConfig(testEnvironment({ ...t.database, url: proxiedUrl.toString() }, t.topicPrefix, { eventLog })));
        const { eventLog: log } = cutRuntime;
        const append: typeof log.append = async (...args) => {
          const appended = await log.append(...args);
          proxy.refuse();
          return appended;
        };
        const cut = await buildApp({ runtime: { ...cutRuntime, eventLog: { ...log, append } } });
        let answer;
        try {
          answer = await postPostback(cut, world.partner, body);
        } finally {
          await cut.close();
          proxy.heal();
          await cutRuntime.close();
          await proxy.close();
        }
        expectRejection(answer, 'postback_intake_unavailable', true);
        const retry = await post(body);
        expect(retry.statusCode, retry.body).toBe(200);
        expect(retry.json().data).toMatchObject({ result: 'already_recorded', correlation_id: answer.json().extra.correlation_id });
      });
    });
  }

  describe('a partner whose allowlist changes', () => {
    it('answers from the allowlist the partner has now: an address is allowed once added and refused once removed', async () => {
      const configure = async (allowlist: string[], partnerId?: string) =>
        (await world.admin.run('partner:configure', {
          ...(partnerId ? { partner_id: partnerId } : {}),
          name: 'moving partner',
          source_ip_allowlist: allowlist,
          goal_mappings: [{ event_name: 'purchase', goal_event: 'install' }],
        })).partner_id!;
      const partner = await configure(['203.0.113.7']);
      const offer = await world.admin.offer({ partner_id: partner, details: (await import('../support/serving-fixtures.js')).details('moving'), destination_url: 'https://shop.example/p' });
      const card = await world.serve(offer);
      const from = (address: string) => postPostback(t.app, partner, { event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id() }, {}, { remoteAddress: address });
      expectRejection(await from('198.51.100.20'), 'source_ip_not_allowed');
      const allowed = await from('203.0.113.7');
      expect(allowed.statusCode, allowed.body).toBe(200);
      await configure(['198.51.100.0/24'], partner);
      const moved = await from('198.51.100.20');
      expect(moved.statusCode, moved.body).toBe(200);
      expectRejection(await from('203.0.113.7'), 'source_ip_not_allowed');
    });
  });

  describe('behind a trusted proxy', () => {
    it('believes X-Forwarded-For only from a proxy in TRUSTED_PROXIES', async () => {
      const proxied = await buildApp({ runtime: { ...t.runtime, config: { ...t.runtime.config, trustedProxies: ['10.9.0.0/16'] } } });
      try {
        const partner = (await world.admin.run('partner:configure', { name: 'proxied partner', source_ip_allowlist: ['203.0.113.7'], goal_mappings: [{ event_name: 'purchase', goal_event: 'install' }] })).partner_id!;
        const offer = await world.admin.offer({ partner_id: partner, details: (await import('../support/serving-fixtures.js')).details('proxied'), destination_url: 'https://shop.example/p' });
        const card = await world.serve(offer);
        const body = () => ({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: id() });
        const viaProxy = await postPostback(proxied, partner, body(), { 'x-forwarded-for': '203.0.113.7' }, { remoteAddress: '10.9.0.1' });
        expect(viaProxy.statusCode, viaProxy.body).toBe(200);
        // The same header from an address that is not a trusted proxy is ignored.
        expectRejection(await postPostback(proxied, partner, body(), { 'x-forwarded-for': '203.0.113.7' }, { remoteAddress: '198.51.100.1' }), 'source_ip_not_allowed');
        // A client behind the proxy cannot smuggle an allowed address in front of its own.
        expectRejection(await postPostback(proxied, partner, body(), { 'x-forwarded-for': '203.0.113.7, 198.51.100.2' }, { remoteAddress: '10.9.0.1' }), 'source_ip_not_allowed');
        // Without TRUSTED_PROXIES, the socket address is the caller.
        expectRejection(await postPostback(t.app, partner, body(), { 'x-forwarded-for': '203.0.113.7' }, { remoteAddress: '10.9.0.1' }), 'source_ip_not_allowed');
        // Through two trusted proxies the client is the address the outer one was given; the log keeps it.
        const twoHops = await postPostback(proxied, partner, body(), { 'x-forwarded-for': '203.0.113.7, 10.9.0.2' }, { remoteAddress: '10.9.0.1' });
        expect(twoHops.statusCode, twoHops.body).toBe(200);
        const { rows: [logged] } = await t.runtime.db.query<{ source_ip: string }>('SELECT source_ip FROM postback_log WHERE correlation_id = $1', [twoHops.json().data.correlation_id]);
        expect(logged?.source_ip).toBe('203.0.113.7');
        // Other headers that name a client are not read at all.
        for (const header of [{ 'x-real-ip': '203.0.113.7' }, { forwarded: 'for=203.0.113.7' }] as Record<string, string>[]) {
          expectRejection(await postPostback(proxied, partner, body(), header, { remoteAddress: '10.9.0.1' }), 'source_ip_not_allowed');
        }
      } finally {
        await proxied.close();
      }
    });
  });
});
