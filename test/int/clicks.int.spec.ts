import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Command } from '../../commands/command.js';
import { registerApplication } from '../../commands/accounts/application-register.js';
import { registerDeveloper } from '../../commands/accounts/developer-register.js';
import { registerLink } from '../../commands/offers/link-register.js';
import { claimLinkCodes } from '../../commands/serves/link-code-claims.js';
import { upsertOffer } from '../../commands/offers/upsert.js';
import { configurePartner } from '../../commands/partners/configure.js';
import { runCommand } from '../../commands/run.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { accountsProjection } from '../../projections/accounts/projection.js';
import { clicksProjection } from '../../projections/clicks/projection.js';
import { findClick } from '../../projections/clicks/queries.js';
import { findServedInstances } from '../../projections/serves/queries.js';
import { offersProjection } from '../../projections/offers/projection.js';
import { partnersProjection } from '../../projections/partners/projection.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { EventType, type LinkClicked } from '../../schemas/generated/events.js';
import { buildApp } from '../../services/api/app.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { rawHttp } from '../support/raw-http.js';
import { readTopic } from '../support/read-topic.js';
import { replayProjection } from '../support/replay.js';
import { appendServe, appendServes } from '../support/serves.js';
import { tableChecksum } from '../../platform/projection/checksum.js';
import { waitFor } from '../support/wait-for.js';

// The link origin on the real stack (Kafka, registry, Postgres, Redis). LINK_BASE has its own
// path here, so the routes are proven to follow it (the default, /l, is used by the embedded suite).
const LINK_BASE = 'https://go.example.test/c';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let t: TestRuntime & { app: Awaited<ReturnType<typeof createTestApp>>['app'] };
// Only the read models clicks use, started together: each joins its consumer group on Kafka.
const projections = [accountsProjection, partnersProjection, offersProjection, servesProjection, clicksProjection];
const running = new Map<string, RunningProjection>();
/** The application the cards are served to (registered: links naming it are checked). */
let APP: string;
let partnerId: string;
let activeOffer: string;
let pausedOffer: string;

const run = (command: Command, input: unknown) => runCommand(command, input, { runtime: t.runtime, now: () => new Date() });
const caughtUp = () => awaitCaughtUp(t.runtime, projections, 60_000);
const get = (path: string) => t.app.inject({ method: 'GET', url: `/c/${path}` });

async function clicksEnd() {
  return (await t.runtime.eventLog.endOffsets('clicks')).map((o) => `${o.partition}:${o.offset}`).sort();
}

/** The click behind a redirect: its id from the Location, its row once projected. */
async function clickRow(response: LightMyRequestResponse, clickId: string) {
  expect(response.statusCode, response.body).toBe(302);
  await awaitCaughtUp(t.runtime, [clicksProjection], 60_000);
  return findClick(t.runtime.db, clickId);
}

function expectLinkHeaders(response: LightMyRequestResponse) {
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
}

function expectError(response: LightMyRequestResponse, status: number, code: string, message?: RegExp) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers.location).toBeUndefined();
  const body = response.json();
  expect(body).toEqual({ code, message: expect.any(String), data: {}, extra: {} });
  if (message) expect(body.message).toMatch(message);
  expectLinkHeaders(response);
}

beforeAll(async () => {
  t = await createTestApp({ eventLog: 'kafka', env: { LINK_BASE } });
  const started = await Promise.all(projections.map((projection) => startProjection(projection, { db: t.runtime.db, eventLog: t.runtime.eventLog })));
  for (const projection of started) running.set(projection.name, projection);
  const developer = String((await run(registerDeveloper, { name: 'Dev', email: 'dev@clicks.example' })).developer_id);
  await caughtUp();
  APP = String((await run(registerApplication, { developer_id: developer, name: 'App' })).application_id);
  partnerId = String((await run(configurePartner, { name: 'Acme' })).partner_id);
  await caughtUp();
  // The offer's current destination is not where a card's link goes: the serve froze its own.
  activeOffer = String((await run(upsertOffer, { partner_id: partnerId, kind: 'local', status: 'active', destination_url: 'https://current.example/now' })).offer_id);
  pausedOffer = String((await run(upsertOffer, { partner_id: partnerId, kind: 'local', status: 'paused' })).offer_id);
  await caughtUp();
});

afterAll(async () => {
  await Promise.all([...running.values()].map((projection) => projection.stop()));
  await t?.close();
});

describe("a card's short link", () => {
  it('redirects (302) to the destination frozen at serve time with macros and sub ids; the click is an event and a row', async () => {
    const serve = await appendServe(t.runtime, {
      offer_id: activeOffer,
      application_id: APP,
      placement_id: uuidv7(),
      destination_url: 'https://shop.example/land?click={svc_click_id}&inst={offer_instance_id}&s1={sub_id1}&s2=%7Bsub_id2%7D&s3={sub_id3}#offer',
    });
    const before = Date.now();
    const response = await get(`${serve.link_code}?sub_id1=u%2042&sub_id2=x%26y%3Dz&sub_id9=ignored&utm_source=app`);
    expect(response.statusCode, response.body).toBe(302);
    expectLinkHeaders(response);
    expect(response.body).toBe('');
    const clickId = new URL(response.headers.location as string).searchParams.get('click')!;
    expect(clickId).toMatch(UUID_V7);
    expect(response.headers.location).toBe(`https://shop.example/land?click=${clickId}&inst=${serve.offer_instance_id}&s1=u%2042&s2=x%26y%3Dz&s3=#offer`);

    const expected: LinkClicked = {
      svc_click_id: clickId,
      link_shape: 'short_code',
      link_code: serve.link_code!,
      offer_instance_id: serve.offer_instance_id,
      application_id: APP,
      offer_id: activeOffer,
      environment: 'live',
      clicked_at: expect.any(Number) as unknown as number,
      sub_id1: 'u 42',
      sub_id2: 'x&y=z',
      sub_id3: null,
      sub_id4: null,
      sub_id5: null,
      redirect_url: response.headers.location as string,
    };
    // Durable before the answer: it is in the log, decoded through the registry.
    const events = await readTopic(t.runtime.eventLog, 'clicks', (all) => all.some((event) => event.key === clickId));
    const event = events.find((candidate) => candidate.key === clickId)!;
    expect(event.type).toBe(EventType.LinkClicked);
    expect(event.value).toEqual(expected);
    expect((event.value as unknown as LinkClicked).clicked_at).toBeGreaterThanOrEqual(before);

    const { clicked_at, ...rest } = expected;
    expect(await clickRow(response, clickId)).toEqual({ ...rest, clicked_at: new Date((event.value as unknown as LinkClicked).clicked_at) });
  });

  it.each([
    ['https://shop.example/plain', (id: string) => `https://shop.example/plain?svc_click_id=${id}`],
    ['https://shop.example/q?ref=app&x=%20#top', (id: string) => `https://shop.example/q?ref=app&x=%20&svc_click_id=${id}#top`],
    ['https://shop.example/f#/route?tab=1', (id: string) => `https://shop.example/f?svc_click_id=${id}#/route?tab=1`],
    // An app deep link is redirected too; the OS hands it to the app.
    ['shopapp://deal/42?src=card', (id: string) => `shopapp://deal/42?src=card&svc_click_id=${id}`],
  ])('without a click id macro, appends svc_click_id to %s', async (destination, expected) => {
    const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP, destination_url: destination });
    const response = await get(serve.link_code!);
    expect(response.statusCode, response.body).toBe(302);
    const clickId = /svc_click_id=([0-9a-f-]{36})/.exec(response.headers.location as string)?.[1];
    expect(clickId).toMatch(UUID_V7);
    expect(response.headers.location).toBe(expected(clickId!));
    expect(await clickRow(response, clickId!)).toMatchObject({ svc_click_id: clickId, redirect_url: expected(clickId!), link_code: serve.link_code });
  });

  it.each(['test', 'sandbox'] as const)('a %s serve records a click of its environment and redirects', async (environment) => {
    const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP, environment, destination_url: 'https://shop.example/t?c={svc_click_id}' });
    const response = await get(serve.link_code!);
    const clickId = new URL(response.headers.location as string).searchParams.get('c')!;
    expect(await clickRow(response, clickId)).toMatchObject({ environment, offer_instance_id: serve.offer_instance_id, application_id: APP });
  });

  it('two cards logged with one link code (a claim that expired while the projector stalled) are both kept; the code opens the first served', async () => {
    const servedAt = Math.floor(Date.now() / 1000) * 1000;
    const [later, first] = await appendServes(t.runtime, [
      { offer_id: activeOffer, application_id: APP, link_code: 'Tw1nCard', served_at: servedAt, destination_url: 'https://shop.example/later' },
      { offer_id: activeOffer, application_id: APP, link_code: 'Tw1nCard', served_at: servedAt - 60_000, destination_url: 'https://shop.example/first' },
    ]);
    const rows = await findServedInstances(t.runtime.db, [later!.offer_instance_id, first!.offer_instance_id]);
    expect(rows.map((row) => row.offer_instance_id).sort()).toEqual([later!.offer_instance_id, first!.offer_instance_id].sort());
    expect((await get('Tw1nCard')).headers.location).toMatch(/^https:\/\/shop\.example\/first\?svc_click_id=/);
  });

  it('each click mints its own id', async () => {
    const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP });
    const [first, second] = [await get(serve.link_code!), await get(serve.link_code!)];
    expect(first.headers.location).not.toBe(second.headers.location);
  });
});

describe('many opens at once', () => {
  it('share their reads: the cards of concurrent opens come in a few statements and their offer from the cache, not two statements an open', async () => {
    // One statement per open and read model held the link origin to a few hundred opens a second
    // on a pool of ten sessions, with the queue behind the pool (and readiness's own check) growing.
    const serves = await appendServes(t.runtime, Array.from({ length: 60 }, () => ({ offer_id: activeOffer, application_id: APP })));
    await get(serves[0]!.link_code!);
    const query = vi.spyOn(t.runtime.db, 'query');
    try {
      const answers = await Promise.all(serves.map((serve) => get(serve.link_code!)));
      expect(answers.map((answer) => answer.statusCode)).toEqual(serves.map(() => 302));
      const statements = query.mock.calls.map(([text]) => String(text));
      const cardReads = statements.filter((text) => /FROM served_instances WHERE link_code/.test(text)).length;
      expect(cardReads).toBeGreaterThan(0);
      expect(cardReads).toBeLessThanOrEqual(serves.length / 4);
      expect(statements.filter((text) => /FROM offers o WHERE/.test(text))).toEqual([]);
      // Each open still names its own card.
      const clicks = answers.map((answer) => new URL(answer.headers.location as string).searchParams.get('svc_click_id')!);
      await awaitCaughtUp(t.runtime, [clicksProjection], 60_000);
      const rows = await Promise.all(clicks.map((clickId) => findClick(t.runtime.db, clickId)));
      expect(rows.map((row) => [row?.link_code, row?.offer_instance_id])).toEqual(serves.map((serve) => [serve.link_code, serve.offer_instance_id]));
    } finally {
      query.mockRestore();
    }
  });
});

describe('registered links', () => {
  it("refuses to register a served card's code, or one just handed out for a card, since it could never open", async () => {
    const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP, destination_url: 'https://shop.example/card' });
    await caughtUp();
    const refusal = { name: 'CommandInputError', field: 'code', message: expect.stringMatching(/served card's tracked link/) };
    await expect(run(registerLink, { offer_id: activeOffer, shape: 'short_code', code: serve.link_code, target_url: 'https://reg.example/x' })).rejects.toMatchObject(refusal);
    const [claimed] = [...(await claimLinkCodes(t.runtime.db, ['Cl4imed1']))];
    expect(claimed).toBe('Cl4imed1');
    await expect(run(registerLink, { offer_id: activeOffer, shape: 'short_code', code: claimed, target_url: 'https://reg.example/x' })).rejects.toMatchObject({
      ...refusal,
      message: expect.stringMatching(/was just taken \(by a card being served or another registration of it\)/),
    });
    // The card's link still opens the card.
    expect((await get(serve.link_code!)).headers.location).toMatch(/^https:\/\/shop\.example\/card\?svc_click_id=/);
  });

  it.each([
    ['short_code', 'Tw1nReg1'],
    ['static_path', 'st_twin-registration'],
  ])('of two registrations of one %s at the same moment exactly one is logged; the other is refused', async (shape, code) => {
    const register = (target: string) => run(registerLink, { offer_id: activeOffer, shape, code, target_url: `https://reg.example/${target}` });
    const outcomes = await Promise.allSettled([register('first'), register('second')]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(refused?.reason).toMatchObject({ name: 'CommandInputError', field: 'code' });
    expect(refused?.reason.message).toMatch(/was just taken|is already registered/);
  });

  it('refuses a link naming an unknown application, or a card of another offer or application', async () => {
    const card = await appendServe(t.runtime, { offer_id: pausedOffer, application_id: APP });
    const other = uuidv7();
    await expect(run(registerLink, { offer_id: activeOffer, shape: 'short_code', application_id: other, target_url: 'https://reg.example/x' })).rejects.toMatchObject({
      name: 'CommandNotFoundError',
      field: 'application_id',
    });
    await expect(run(registerLink, { offer_id: activeOffer, shape: 'instance_uuid', code: card.offer_instance_id, target_url: 'https://reg.example/x' })).rejects.toMatchObject({
      name: 'CommandInputError',
      field: 'code',
      message: expect.stringMatching(new RegExp(`was served for offer ${pausedOffer}, not ${activeOffer}`)),
    });
    await expect(run(registerLink, { offer_id: activeOffer, shape: 'short_code', offer_instance_id: card.offer_instance_id, target_url: 'https://reg.example/x' })).rejects.toMatchObject({
      field: 'offer_instance_id',
    });
    // The card's own offer: the link is registered.
    await expect(run(registerLink, { offer_id: pausedOffer, shape: 'instance_uuid', code: card.offer_instance_id, application_id: APP, target_url: 'https://reg.example/x' })).resolves.toMatchObject({ code: card.offer_instance_id });
  });

  it('a registration whose event is not logged leaves its code free for the retry', async () => {
    const unavailableLog = Object.assign(Object.create(t.runtime.eventLog) as typeof t.runtime.eventLog, { append: () => Promise.reject(new Error('log unavailable')) });
    const input = { offer_id: activeOffer, shape: 'short_code', code: 'R3tryReg', target_url: 'https://reg.example/retry' };
    await expect(runCommand(registerLink, input, { runtime: { ...t.runtime, eventLog: unavailableLog }, now: () => new Date() })).rejects.toThrow('log unavailable');
    await expect(run(registerLink, input)).resolves.toMatchObject({ code: 'R3tryReg' });
  });

  it('opens each shape at its registered target_url, environment live', async () => {
    const instance = uuidv7();
    const links = [
      { shape: 'short_code', code: 'Rg5tLnk1', application_id: APP, path: 'Rg5tLnk1', instance: null },
      { shape: 'instance_uuid', code: instance, application_id: APP, path: instance, instance },
      // The same instance link written in uppercase: a UUID in either case is one link.
      { shape: 'instance_uuid', code: instance, application_id: APP, path: instance.toUpperCase(), instance, registered: true },
      { shape: 'static_path', code: 'st_offer-wall_1', path: 'static/st_offer-wall_1', instance: null },
    ];
    for (const link of links.filter((candidate) => !candidate.registered)) {
      await run(registerLink, {
        offer_id: activeOffer,
        shape: link.shape,
        code: link.code,
        ...(link.application_id ? { application_id: link.application_id } : {}),
        target_url: `https://partner.example/${link.shape}?inst={offer_instance_id}`,
      });
    }
    await caughtUp();
    for (const link of links) {
      const response = await get(`${link.path}?sub_id5=w`);
      expect(response.statusCode, `${link.path}: ${response.body}`).toBe(302);
      const clickId = new URL(response.headers.location as string).searchParams.get('svc_click_id')!;
      expect(response.headers.location).toBe(`https://partner.example/${link.shape}?inst=${link.instance ?? ''}&svc_click_id=${clickId}`);
      expect(await clickRow(response, clickId)).toMatchObject({
        link_shape: link.shape,
        link_code: link.code,
        offer_instance_id: link.instance,
        application_id: link.application_id ?? null,
        offer_id: activeOffer,
        environment: 'live',
        sub_id5: 'w',
      });
    }
  });
});

describe('links that do not open', () => {
  it('unknown codes of every shape and paths no link can have: 404 NOT_FOUND in the envelope, nothing recorded', async () => {
    const before = await clicksEnd();
    for (const path of ['Zz9yX8wV', uuidv7(), uuidv7().toUpperCase(), 'static/st_never-registered']) {
      expectError(await get(path), 404, 'NOT_FOUND', /no tracked link/);
    }
    for (const path of ['abc', 'Ab3dE6gH9', 'Ab3dE6g-', 'st_at-the-root', 'static/xx_1', 'static/st_', 'static/st_a.b', '%7Bcode%7D']) {
      expectError(await get(path), 404, 'NOT_FOUND', /no tracked link/);
    }
    // Not the link origin's path at all: the ordinary 404.
    const elsewhere = await t.app.inject({ method: 'GET', url: '/l/Ab3dE6gH' });
    expect(elsewhere.statusCode).toBe(404);
    expect(await clicksEnd()).toEqual(before);
  });

  it('a link without a destination (or one a browser must not be sent to) is 404, nothing recorded', async () => {
    await run(registerLink, { offer_id: activeOffer, shape: 'static_path', code: 'st_no-target' });
    await caughtUp();
    const noDestination = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP, destination_url: null });
    const script = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP, destination_url: 'javascript:alert(document.cookie)' });
    const before = await clicksEnd();
    for (const path of ['static/st_no-target', noDestination.link_code!, script.link_code!]) {
      expectError(await get(path), 404, 'NOT_FOUND', /no destination/);
    }
    expect(await clicksEnd()).toEqual(before);
  });

  it('a link whose offer is not active is 410 OFFER_NOT_ACTIVE, nothing recorded; it opens again once the offer is active', async () => {
    const serve = await appendServe(t.runtime, { offer_id: pausedOffer, application_id: APP });
    const before = await clicksEnd();
    expectError(await get(serve.link_code!), 410, 'OFFER_NOT_ACTIVE');
    expect(await clicksEnd()).toEqual(before);

    await run(upsertOffer, { offer_id: pausedOffer, partner_id: partnerId, kind: 'local', status: 'active' });
    await caughtUp();
    expect((await get(serve.link_code!)).statusCode).toBe(302);

    await run(upsertOffer, { offer_id: pausedOffer, partner_id: partnerId, kind: 'local', status: 'active', deleted: true });
    await caughtUp();
    expectError(await get(serve.link_code!), 410, 'OFFER_NOT_ACTIVE');
  });

  it('a test-only offer\'s link opens for a test card only: a live or sandbox card\'s is 410, as the instance route reports the offer expired', async () => {
    const testOnly = String((await run(upsertOffer, { partner_id: partnerId, kind: 'local', status: 'active', test_only: true })).offer_id);
    await caughtUp();
    const live = await appendServe(t.runtime, { offer_id: testOnly, application_id: APP });
    const sandbox = await appendServe(t.runtime, { offer_id: testOnly, application_id: APP, environment: 'sandbox' });
    const test = await appendServe(t.runtime, { offer_id: testOnly, application_id: APP, environment: 'test' });
    const before = await clicksEnd();
    expectError(await get(live.link_code!), 410, 'OFFER_NOT_ACTIVE');
    // Query never serves a test-only offer to a sandbox serve either.
    expectError(await get(sandbox.link_code!), 410, 'OFFER_NOT_ACTIVE');
    expect(await clicksEnd()).toEqual(before);
    expect((await get(test.link_code!)).statusCode).toBe(302);
  });

  it('a repeated, overlong or undecodable sub id is 400 naming it, nothing recorded', async () => {
    const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP });
    const before = await clicksEnd();
    expectError(await get(`${serve.link_code}?sub_id2=a&sub_id2=b`), 400, 'BAD_REQUEST', /^sub_id2: is given more than once/);
    expectError(await get(`${serve.link_code}?sub_id1=${'x'.repeat(256)}`), 400, 'BAD_REQUEST', /^sub_id1: is longer than 255 characters/);
    expectError(await get(`${serve.link_code}?sub_id3=a%00b`), 400, 'BAD_REQUEST', /^sub_id3: contains a NUL character/);
    // Not UTF-8 once percent-decoded (a Latin-1 byte, an encoded surrogate), also with its name spelled in escapes.
    expectError(await get(`${serve.link_code}?sub_id4=caf%E9`), 400, 'BAD_REQUEST', /^sub_id4: is not UTF-8 once percent-decoded/);
    expectError(await get(`${serve.link_code}?sub_id1=ok&sub%5Fid5=%ED%A0%80`), 400, 'BAD_REQUEST', /^sub_id5: is not UTF-8 once percent-decoded/);
    expect(await clicksEnd()).toEqual(before);
    // A % without two hex digits after it is text, as written (partners' tools send `50%off` so).
    // A + is a space, as in any form's query string (README); %2B is the plus sign.
    const loose = await get(`${serve.link_code}?sub_id1=50%off&sub_id2=a+b&sub_id3=%2B1555&utm=caf%E9`);
    expect(loose.statusCode, loose.body).toBe(302);
    const isLoose = (event: { value: unknown }) => (event.value as LinkClicked).redirect_url === loose.headers.location;
    const events = await readTopic(t.runtime.eventLog, 'clicks', (all) => all.some(isLoose));
    expect(events.find(isLoose)?.value).toMatchObject({ sub_id1: '50%off', sub_id2: 'a b', sub_id3: '+1555' });
  });

  it('a GET whose body breaks its framing is refused 400 on the socket and records no click', async () => {
    const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP });
    if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const refused = await rawHttp(port, `GET /c/${serve.link_code}?sub_id1=bad-framing HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n`);
    expect(refused.status, refused.body).toBe(400);
    expect(refused.headers.location).toBeUndefined();
    // A body that arrives whole is read and dropped: the link opens as without it.
    const whole = await rawHttp(port, `GET /c/${serve.link_code}?sub_id1=whole HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\nok\r\n0\r\n\r\n`);
    expect(whole.status, whole.body).toBe(302);
    // The refused open began first: had it been recorded, its click would be logged by the time the later one is.
    const subIds = (events: { value: unknown }[]) => events.filter((event) => (event.value as LinkClicked).link_code === serve.link_code).map((event) => (event.value as LinkClicked).sub_id1);
    const events = await readTopic(t.runtime.eventLog, 'clicks', (all) => subIds(all).includes('whole'));
    expect(subIds(events)).toEqual(['whole']);
  });

  it('a click logged with a NUL (before the write side refused one) is stored with U+FFFD and never stalls the clicks read model', async () => {
    const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP, destination_url: 'https://shop.example/n' });
    const poisoned: LinkClicked = {
      svc_click_id: uuidv7(), link_shape: 'short_code', link_code: serve.link_code!, offer_instance_id: serve.offer_instance_id, application_id: APP,
      offer_id: activeOffer, environment: 'live', clicked_at: Date.now(), sub_id1: 'a\u0000b', sub_id2: null, sub_id3: null, sub_id4: null, sub_id5: null,
      redirect_url: 'https://shop.example/n',
    };
    // Straight into the log, as an older version of the service could have written it.
    await t.runtime.eventLog.append('clicks', [{ key: poisoned.svc_click_id, type: EventType.LinkClicked, value: { ...poisoned } }]);
    const after = await get(serve.link_code!);
    const clickId = /svc_click_id=([0-9a-f-]{36})/.exec(after.headers.location as string)![1]!;
    expect(await clickRow(after, clickId)).toMatchObject({ svc_click_id: clickId });
    expect(await findClick(t.runtime.db, poisoned.svc_click_id)).toMatchObject({ sub_id1: 'a\ufffdb' });
  });
});

describe('methods', () => {
  it('HEAD answers what GET would, without recording a click or minting an id', async () => {
    const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP });
    const before = await clicksEnd();
    const head = await t.app.inject({ method: 'HEAD', url: `/c/${serve.link_code}` });
    expect(head.statusCode).toBe(302);
    expect(head.headers.location).toBeUndefined();
    expectLinkHeaders(head);
    expect((await t.app.inject({ method: 'HEAD', url: '/c/Zz9yX8wV' })).statusCode).toBe(404);
    expect(await clicksEnd()).toEqual(before);
  });

  it('other methods are 405 naming GET and HEAD', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/c/Ab3dE6gH', payload: {} });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(response.json()).toMatchObject({ code: '405', data: {} });
  });

  it('every answer under the link path is never cached, the ones no link route writes included', async () => {
    const answers = [
      [await t.app.inject({ method: 'POST', url: '/c/Ab3dE6gH', payload: {} }), 405],
      [await t.app.inject({ method: 'TRACE', url: '/c/Ab3dE6gH' }), 405],
      [await get('Ab3dE6gH/'), 404],
      [await get('Ab3dE6gH/more'), 404],
      [await t.app.inject({ method: 'GET', url: '/c' }), 404],
      [await get('%zz'), 400],
    ] as const;
    for (const [response, status] of answers) {
      expect(response.statusCode, response.body).toBe(status);
      expectLinkHeaders(response);
    }
    // Elsewhere the link origin's headers are not sent.
    expect((await t.app.inject({ method: 'GET', url: '/v1/nothing-here' })).headers['cache-control']).toBeUndefined();
  });
});

describe('read your own writes', () => {
  /** Runs `during` while the serves projection cannot write (its table locked against writes; reads go on). */
  const withServesBlocked = <T>(during: () => Promise<T>) =>
    t.runtime.db.transaction(async (tx) => {
      await tx.query('LOCK TABLE served_instances IN EXCLUSIVE MODE');
      return during();
    });
  const projectorBlocked = async () =>
    (await t.runtime.db.query(`SELECT 1 FROM pg_locks WHERE relation = 'served_instances'::regclass AND NOT granted`)).rows.length > 0;

  it('a click on a card served a moment ago waits for the serves projection rather than answering 404', async () => {
    let click: Promise<LightMyRequestResponse> | undefined;
    await withServesBlocked(async () => {
      const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP }, { applied: false });
      click = get(serve.link_code!);
      // The projector holds the serve and waits on the lock: the click cannot have found it yet.
      await waitFor(projectorBlocked, { what: 'the serves projector waiting on its table' });
    });
    expect((await click!).statusCode).toBe(302);
  });

  it('a link whose reads do not answer (the table locked by another session) is 503 LINK_UNAVAILABLE after the deadline, not a hang', async () => {
    const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP });
    const before = await clicksEnd();
    await t.runtime.db.transaction(async (tx) => {
      await tx.query('LOCK TABLE served_instances IN ACCESS EXCLUSIVE MODE');
      expectError(await get(serve.link_code!), 503, 'LINK_UNAVAILABLE', /retry/);
    });
    expect(await clicksEnd()).toEqual(before);
    expect((await get(serve.link_code!)).statusCode).toBe(302);
    // One click logged, the redirected one: the click answered 503 logs none, though its reads
    // answered as soon as the lock went (before this second click's did).
    const logged = (ends: string[]) => ends.reduce((sum, end) => sum + Number(end.split(':')[1]), 0);
    expect(logged(await clicksEnd())).toBe(logged(before) + 1);
  });

  it('while the read models cannot catch up, an unknown code is 503 LINK_UNAVAILABLE (retry), never a wrong 404', async () => {
    await withServesBlocked(async () => {
      await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP }, { applied: false });
      expectError(await get('Qq1wE2rT'), 503, 'LINK_UNAVAILABLE', /retry/);
    });
  });
});

describe('durability first', () => {
  it('when the click cannot be appended, the answer is 503 LINK_UNAVAILABLE and no redirect', async () => {
    const serve = await appendServe(t.runtime, { offer_id: activeOffer, application_id: APP });
    const failingLog = { ...t.runtime.eventLog, append: async () => Promise.reject(new Error('broker unavailable')) };
    const app = await buildApp({ runtime: { ...t.runtime, eventLog: failingLog } });
    try {
      expectError(await app.inject({ method: 'GET', url: `/c/${serve.link_code}` }), 503, 'LINK_UNAVAILABLE');
    } finally {
      await app.close();
    }
  });
});

describe('replay', () => {
  it('replaying `clicks` rebuilds identical rows', async () => {
    await awaitCaughtUp(t.runtime, [clicksProjection], 60_000);
    const before = await tableChecksum(t.runtime.db, 'clicks');
    expect(Number(before.rows)).toBeGreaterThanOrEqual(10);
    await running.get('clicks')!.stop();
    running.delete('clicks');
    await replayProjection(t.runtime.db, t.runtime.eventLog, clicksProjection);
    expect(await tableChecksum(t.runtime.db, 'clicks')).toEqual(before);
    running.set('clicks', await startProjection(clicksProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog }));
  });
});
