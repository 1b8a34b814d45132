import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTBACK_REASONS, type PostbackReason } from '../../commands/postbacks/rejections.js';
import { buildApp } from '../../services/api/app.js';
import { openPostbackRefusals, type PostbackRefusals } from '../../services/api/postback-refusals.js';
import { EXCERPT_BYTES } from '../../services/api/routes/postbacks/refusal-record.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { postPostback } from '../support/postback-world.js';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.js';

const PARTNER = '0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b';
const CAP = 100;

/** Posts a postback the intake refuses before the log; its correlation id. */
async function refused(app: FastifyInstance, body: unknown = { event_name: 'purchase', offer_instance_id: PARTNER, event_id: 'e-1' }, reason = 'partner_not_found') {
  const response = await postPostback(app, PARTNER, body);
  expect(response.json().extra).toMatchObject({ reason, event_logged: false });
  return response.json().extra.correlation_id as string;
}

const lost = async (t: TestRuntime) => (await t.runtime.metrics.postbackRefusalsLost.get()).values.reduce((sum, value) => sum + value.value, 0);

describe('the diagnostics store of refused postbacks, in Redis', () => {
  let redis: PrivateRedis;
  let t: TestRuntime;
  let app: FastifyInstance;
  let refusals: PostbackRefusals;
  let control: Redis;
  const key = () => `${t.topicPrefix}postbacks:refused`;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    t = await createTestRuntime({ eventLog: 'sql', env: { REDIS_URL: redis.url, POSTBACK_REFUSALS_MAX: String(CAP) } });
    refusals = openPostbackRefusals(t.runtime);
    app = await buildApp({ runtime: t.runtime, postbackRefusals: refusals });
    control = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    // The test stops this Redis on purpose: the reconnect attempts of the reading client are expected, not news.
    control.on('error', () => {});
  });
  afterAll(async () => {
    control?.disconnect();
    await app?.close();
    await t?.close();
    await redis?.close();
  });

  it('keeps each refusal with a short excerpt of what was sent, in a stream capped near POSTBACK_REFUSALS_MAX', async () => {
    let last = '';
    // An unknown field: refused as invalid_payload, with a body far larger than an excerpt.
    for (let n = 0; n < 3 * CAP; n += 1) last = await refused(app, { event_name: 'purchase', offer_instance_id: PARTNER, event_id: `e-${n}`, padding: 'x'.repeat(10_000) }, 'invalid_payload');
    await refusals.flush();
    const length = await control.xlen(key());
    // MAXLEN ~ trims whole stream nodes (100 entries each): at least the cap, never much more.
    expect(length).toBeGreaterThanOrEqual(CAP);
    expect(length).toBeLessThanOrEqual(2 * CAP);
    const [newest] = await refusals.older(undefined, 1);
    expect(newest!.value).toMatchObject({ correlation_id: last, partner_id: PARTNER, reason: 'invalid_payload', status: 400, method: 'POST', content_type: 'application/json', source_ip: '127.0.0.1' });
    expect(newest!.value.excerpt.startsWith('{"event_name":"purchase"')).toBe(true);
    expect(Buffer.byteLength(newest!.value.excerpt)).toBeLessThanOrEqual(EXCERPT_BYTES);
    const [, fields] = (await control.xrevrange(key(), '+', '-', 'COUNT', 1))[0]!;
    expect(Buffer.byteLength(fields.join(''))).toBeLessThan(600);
  });

  it('shows a byte of the body that is not UTF-8 as that byte, not as U+FFFD', async () => {
    const body = Buffer.concat([Buffer.from(`{"event_name":"purchase","offer_instance_id":"${PARTNER}","order_id":"caf`), Buffer.from([0xe9]), Buffer.from('"}')]);
    const response = await app.inject({ method: 'POST', url: `/v1/postback/${PARTNER}`, headers: { 'content-type': 'application/json', 'svc-protocol-version': '1.0' }, payload: body });
    expect(response.json().extra).toMatchObject({ reason: 'invalid_payload', event_logged: false });
    await refusals.flush();
    const [newest] = await refusals.older(undefined, 1);
    expect(newest!.value).toMatchObject({ correlation_id: response.json().extra.correlation_id, excerpt: expect.stringContaining('"order_id":"caf\\x{e9}"') });
  });

  it('a partner id the router cannot decode is refused in the postback envelope, as the route would, and kept', async () => {
    const send = (method: 'POST' | 'GET' | 'PUT', headers: Record<string, string>) =>
      app.inject({ method, url: '/v1/postback/%zz', headers, ...(method === 'POST' ? { payload: '{"event_name":"purchase"}' } : {}) });
    const current = { 'content-type': 'application/json', 'svc-protocol-version': '1.0' };
    const cases: { method: 'POST' | 'GET' | 'PUT'; headers: Record<string, string>; status: number; reason: string; protocolHeader: string | undefined }[] = [
      { method: 'POST', headers: current, status: 404, reason: 'partner_not_found', protocolHeader: '1.0' },
      { method: 'POST', headers: { 'content-type': 'application/json', 'svc-protocol-version': '2.0' }, status: 400, reason: 'unsupported_protocol_version', protocolHeader: '1.0' },
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 404, reason: 'partner_not_found', protocolHeader: undefined },
      { method: 'GET', headers: {}, status: 404, reason: 'partner_not_found', protocolHeader: undefined },
      { method: 'PUT', headers: {}, status: 405, reason: 'method_not_allowed', protocolHeader: '1.0' },
      { method: 'PUT', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 405, reason: 'method_not_allowed', protocolHeader: '1.0' },
    ];
    for (const { method, headers, status, reason, protocolHeader } of cases) {
      const response = await send(method, headers);
      const what = `${method} ${JSON.stringify(headers)}`;
      expect(response.statusCode, what).toBe(status);
      expect(response.headers['svc-protocol-version'], what).toBe(protocolHeader);
      expect(response.json(), what).toEqual({
        code: POSTBACK_REASONS[reason as PostbackReason].code, message: reason, data: {},
        extra: { result: 'rejected', reason, correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/), retryable: false, event_logged: false },
      });
    }
    const last = (await send('POST', current)).json().extra.correlation_id as string;
    await refusals.flush();
    const [newest] = await refusals.older(undefined, 1);
    expect(newest!.value).toMatchObject({ correlation_id: last, reason: 'partner_not_found', status: 404, method: 'POST' });
  });

  it('a method no route of the partner path takes (TRACE, PROPFIND) or a longer path is kept with the partner of its path', async () => {
    for (const [method, url] of [['TRACE', `/v1/postback/${PARTNER}`], ['PROPFIND', `/v1/postback/${PARTNER}?event_name=x`], ['GET', `/v1/postback/${PARTNER}/extra`]] as const) {
      const response = await app.inject({ method, url });
      expect(response.json().extra, `${method} ${url}`).toMatchObject({ event_logged: false });
      await refusals.flush();
      const [newest] = await refusals.older(undefined, 1);
      expect(newest!.value, `${method} ${url}`).toMatchObject({ correlation_id: response.json().extra.correlation_id, partner_id: PARTNER, method });
    }
  });

  it('answers while Redis takes no writes, and stores the refusal once it does', async () => {
    const before = await control.xlen(key());
    await control.client('PAUSE', 60_000, 'WRITE');
    try {
      const id = await refused(app);
      // Answered while the write still waits in Redis.
      expect(await control.xlen(key())).toBe(before);
      await control.client('UNPAUSE');
      await refusals.flush();
      expect((await refusals.older(undefined, 1))[0]!.value.correlation_id).toBe(id);
    } finally {
      await control.client('UNPAUSE');
    }
  });

  it('answers while Redis is down, and counts the refusals it could not keep', async () => {
    const lostBefore = await lost(t);
    await redis.stop();
    try {
      await refused(app);
      await refused(app);
      await refusals.flush();
      expect((await lost(t)) - lostBefore).toBe(2);
    } finally {
      await redis.start();
    }
  });
});

describe('the diagnostics store of refused postbacks, without Redis', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let refusals: PostbackRefusals;

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql', env: { REDIS_URL: '', POSTBACK_REFUSALS_MAX: String(CAP) } });
    refusals = openPostbackRefusals(t.runtime);
    app = await buildApp({ runtime: t.runtime, postbackRefusals: refusals });
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it('keeps exactly the newest POSTBACK_REFUSALS_MAX in this process', async () => {
    expect(t.runtime.redis).toBeUndefined();
    const ids: string[] = [];
    for (let n = 0; n < CAP + 20; n += 1) ids.push(await refused(app));
    const kept = await refusals.older(undefined, 10 * CAP);
    expect(kept.map((entry) => entry.value.correlation_id)).toEqual(ids.slice(-CAP).reverse());
  });
});

describe('the diagnostics store of refused postbacks, per source address (POSTBACK_REFUSALS_PER_ADDRESS)', () => {
  const BUDGET = 5;
  let t: TestRuntime;
  let app: FastifyInstance;
  let refusals: PostbackRefusals;

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql', env: { POSTBACK_REFUSALS_MAX: String(CAP), POSTBACK_REFUSALS_PER_ADDRESS: String(BUDGET) } });
    refusals = openPostbackRefusals(t.runtime);
    app = await buildApp({ runtime: t.runtime, postbackRefusals: refusals });
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  it("keeps one address's share of refusals a minute, so a flood cannot push another partner's out; every caller still gets its answer", async () => {
    const body = { event_name: 'purchase', offer_instance_id: PARTNER, event_id: 'e-1' };
    const flood: string[] = [];
    // The minute may turn during the flood: its budget is then spent twice at most.
    for (let n = 0; n < 3 * CAP; n += 1) {
      const response = await postPostback(app, PARTNER, body, {}, { remoteAddress: '203.0.113.66' });
      expect(response.statusCode).toBe(404);
      flood.push(response.json().extra.correlation_id);
    }
    const other = await postPostback(app, PARTNER, body, {}, { remoteAddress: '198.51.100.5' });
    expect(other.statusCode).toBe(404);
    await refusals.flush();
    const kept = (await refusals.older(undefined, 10 * CAP)).map((entry) => entry.value);
    const fromFlood = kept.filter((refusal) => refusal.source_ip === '203.0.113.66');
    expect(fromFlood.length).toBeGreaterThanOrEqual(BUDGET);
    expect(fromFlood.length).toBeLessThanOrEqual(2 * BUDGET);
    expect(flood).toEqual(expect.arrayContaining(fromFlood.map((refusal) => refusal.correlation_id)));
    expect(kept.map((refusal) => refusal.correlation_id)).toContain(other.json().extra.correlation_id);
    expect(await lost(t)).toBe(3 * CAP - fromFlood.length);
  });

  it('counts an IPv6 caller by its /64, as the rate limits do: a fresh address of the same network for each refusal gets no fresh share', async () => {
    const body = { event_name: 'purchase', offer_instance_id: PARTNER, event_id: 'e-2' };
    const lostBefore = await lost(t);
    // The minute may turn during the flood: its budget is then spent twice at most.
    for (let n = 1; n <= 3 * CAP; n += 1) {
      const response = await postPostback(app, PARTNER, body, {}, { remoteAddress: `2001:db8:66:1:${n.toString(16)}::1` });
      expect(response.statusCode).toBe(404);
    }
    const other = await postPostback(app, PARTNER, body, {}, { remoteAddress: '2001:db8:66:2::1' });
    await refusals.flush();
    const kept = (await refusals.older(undefined, 10 * CAP)).map((entry) => entry.value);
    const fromFlood = kept.filter((refusal) => refusal.source_ip.startsWith('2001:db8:66:1:'));
    expect(fromFlood.length).toBeGreaterThanOrEqual(BUDGET);
    expect(fromFlood.length).toBeLessThanOrEqual(2 * BUDGET);
    // Another network is another caller.
    expect(kept.map((refusal) => refusal.correlation_id)).toContain(other.json().extra.correlation_id);
    expect((await lost(t)) - lostBefore).toBe(3 * CAP - fromFlood.length);
  });
});
