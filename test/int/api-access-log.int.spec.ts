import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { rawHttp } from '../support/raw-http.js';
import { startApi, type ApiProcess } from '../support/service-processes.js';

/** The API's access log, as an operator reads it: a credential sent in a URL by mistake is not in it. */
const ADMIN_TOKEN = `access-log-admin-token-${randomBytes(8).toString('hex')}`;
const METRICS_TOKEN = `access-log-metrics-token-${randomBytes(8).toString('hex')}`;
let database: TestDatabase;
let api: ApiProcess;

beforeAll(async () => {
  database = await createTestDatabase();
  api = await startApi({ ...testEnvironment(database, `t${randomBytes(4).toString('hex')}.`), LOG_LEVEL: 'info', ADMIN_TOKEN, METRICS_TOKEN });
});
afterAll(async () => {
  await api?.stop();
  await database?.drop();
});

describe('access log', () => {
  it.each([
    ['/admin/commands?token=', '/admin/commands?token=[redacted]'],
    ['/admin/postbacks?decision=accepted&access_token=', '/admin/postbacks?decision=accepted&access_token=[redacted]'],
    ['/admin/postbacks/', '/admin/postbacks/[redacted]'],
    ['/admin/login?next=/admin/postbacks?q=', '/admin/login?next=/admin/postbacks?q=[redacted]'],
  ])('%s<the admin token> is logged as %s', async (path, logged) => {
    const response = await fetch(`${api.url}${path}${ADMIN_TOKEN}`);
    expect(response.status).toBeLessThan(500);
    await response.body?.cancel();
    const entry = await api.waitForLog((line) => (line.req as { url?: string } | undefined)?.url === logged);
    expect(entry.req).toMatchObject({ method: 'GET', remoteAddress: '127.0.0.1' });
    // One line a request, with how it was answered and how long that took.
    expect(entry).toMatchObject({ msg: 'request completed', res: { statusCode: response.status }, responseTime: expect.any(Number) });
    expect(api.output().split('\n').filter((line) => line.includes(`"reqId":${JSON.stringify(entry.reqId)}`))).toHaveLength(1);
    expect(api.output()).not.toContain(ADMIN_TOKEN);
  });

  it('drops the metrics token too, and a token with a letter percent-encoded, and an API key in a path segment', async () => {
    const spelled = `%${ADMIN_TOKEN.charCodeAt(0).toString(16)}${ADMIN_TOKEN.slice(1)}`;
    for (const [path, logged] of [
      [`/v1/locations/2250?x=${METRICS_TOKEN}`, '/v1/locations/2250?x=[redacted]'],
      [`/v1/locations/2250?x=${spelled}`, '/v1/locations/2250?x=[redacted]'],
      ['/v1/locations/svc_live_AbCdEf0123456789', '/v1/locations/[redacted]'],
    ]) {
      const response = await fetch(`${api.url}${path}`);
      await response.body?.cancel();
      await api.waitForLog((line) => (line.req as { url?: string } | undefined)?.url === logged);
    }
    expect(api.output()).not.toContain(METRICS_TOKEN);
    expect(api.output()).not.toContain(ADMIN_TOKEN.slice(1));
    expect(api.output()).not.toContain('svc_live_AbCdEf0123456789');
  });

  it('escapes what the client chose and cuts it short: a Host byte 0x9b (CSI) or a bidi override, a 12 KB URL, a user and password in the target', async () => {
    const port = Number(new URL(api.url).port);
    const marker = randomBytes(6).toString('hex');
    // Node reads header bytes as Latin-1: the UTF-8 of U+009B is two bytes, the second 0x9b itself.
    const answered = await rawHttp(port, `GET /${marker}/host HTTP/1.1\r\nHost: a\u009b2J\u202eb\r\nConnection: close\r\n\r\n`);
    // Refused as a Host no URL can have, and logged all the same.
    expect(answered.status).toBe(400);
    const host = await api.waitForLog((line) => (line.req as { url?: string } | undefined)?.url === `/${marker}/host`);
    expect((host.req as { host: string }).host).toBe('aÂ\\u{9b}2Jâ\\u{80}®b');
    const long = `/${marker}/long?q=${'x'.repeat(12_000)}`;
    expect((await rawHttp(port, `GET ${long} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`)).status).toBe(404);
    const cut = await api.waitForLog((line) => (line.req as { url?: string } | undefined)?.url?.startsWith(`/${marker}/long`) === true);
    expect((cut.req as { url: string }).url).toBe(`${long.slice(0, 2045)}…`);
    expect(api.output().split('\n').find((line) => line.includes(`/${marker}/long`))!.length).toBeLessThan(2_600);
    expect((await rawHttp(port, `GET http://user:pa55-${marker}@a/${marker}/target HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`)).status).toBe(404);
    await api.waitForLog((line) => (line.req as { url?: string } | undefined)?.url === `http://[redacted]@a/${marker}/target`);
    expect(api.output()).not.toContain(`pa55-${marker}`);
  });

  it('logs and counts what Fastify refuses before any route runs: a path it cannot decode, on any route and on a postback path', async () => {
    const marker = randomBytes(6).toString('hex');
    // A postback path's refusal is the postback's: its partner id names no partner (404).
    const refused = [[`/v1/locations/%zz?m=${marker}`, 400], [`/v1/postback/%zz?m=${marker}`, 404]] as const;
    const before = await Promise.all(refused.map(async ([, status]) => (await scrapedCount('unmatched', String(status))) ?? 0));
    for (const [path, status] of refused) {
      const response = await fetch(`${api.url}${path}`);
      expect(response.status).toBe(status);
      await response.body?.cancel();
      const entry = await api.waitForLog((line) => (line.req as { url?: string } | undefined)?.url === path);
      expect(entry).toMatchObject({ msg: 'request completed', req: { method: 'GET' }, res: { statusCode: status }, responseTime: expect.any(Number) });
    }
    const after = await Promise.all(refused.map(async ([, status]) => (await scrapedCount('unmatched', String(status))) ?? 0));
    expect(after).toEqual(before.map((count) => count + 1));
  });

  it('logs and counts what the HTTP parser refuses before Fastify sees it: a malformed request line, a head too large, an unmet Expect', async () => {
    const port = Number(new URL(api.url).port);
    const marker = randomBytes(6).toString('hex');
    const refused = [
      { request: `GET /${marker}/bad x HTTP/1.1\r\nHost: a\r\n\r\n`, status: 400, cause: 'HPE_INVALID_CONSTANT', path: `/${marker}/bad` },
      { request: `GET /${marker}/large HTTP/1.1\r\nHost: a\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`, status: 431, cause: 'HPE_HEADER_OVERFLOW', path: `/${marker}/large` },
      { request: `POST /${marker}/expect?token=${ADMIN_TOKEN} HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nContent-Length: 2\r\nConnection: close\r\n\r\n`, status: 417, cause: 'expectation', path: `/${marker}/expect` },
    ];
    const before = await Promise.all(refused.map(async ({ status, cause }) => (await refusedCount(String(status), cause)) ?? 0));
    for (const { request, status, cause, path } of refused) {
      expect((await rawHttp(port, request)).status).toBe(status);
      const entry = await api.waitForLog((line) => (line.refusal as { path?: string } | undefined)?.path === path);
      expect(entry).toMatchObject({ msg: 'request refused before routing', refusal: { status, cause, remoteAddress: '127.0.0.1' } });
    }
    const after = await Promise.all(refused.map(async ({ status, cause }) => (await refusedCount(String(status), cause)) ?? 0));
    expect(after).toEqual(before.map((count) => count + 1));
    // The query (where a credential may be by mistake) is not logged.
    expect(api.output()).not.toContain(ADMIN_TOKEN);
  });

  it('says why a postback was answered 503 (the service\'s trouble, not the partner\'s), with its correlation id', async () => {
    const configured = await fetch(`${api.url}/admin/commands/partner:configure`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Log partner', source_ip_allowlist: ['127.0.0.1/32'] }),
    });
    expect(configured.status).toBe(200);
    const { partner_id } = ((await configured.json()) as { data: { partner_id: string } }).data;
    // A click id minted this moment that no click has: it may not be projected yet, so 503.
    const posted = await fetch(`${api.url}/v1/postback/${partner_id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-protocol-version': '1.0' },
      body: JSON.stringify({ event_name: 'sale', svc_click_id: uuidv7(), event_id: 'log-503' }),
    });
    expect(posted.status).toBe(503);
    const { extra } = (await posted.json()) as { extra: { reason: string; correlation_id: string } };
    const line = await api.waitForLog((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('postback answered 503: '));
    expect(line).toMatchObject({ level: 40, reason: extra.reason, correlation_id: extra.correlation_id, event_logged: false });
  });
});

/** The count of requests refused before routing with `status` for `cause`, as /metrics shows it (undefined when there is none yet). */
async function refusedCount(status: string, cause: string): Promise<number | undefined> {
  const scraped = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(scraped.status).toBe(200);
  const series = `http_requests_refused_before_routing_total{status="${status}",cause="${cause}"} `;
  const line = (await scraped.text()).split('\n').find((each) => each.startsWith(series));
  return line === undefined ? undefined : Number(line.slice(series.length));
}

/** The request count of GET answers on `route` with `status`, as /metrics shows it (undefined when there is none yet). */
async function scrapedCount(route: string, status: string): Promise<number | undefined> {
  const scraped = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(scraped.status).toBe(200);
  const series = `http_request_duration_seconds_count{method="GET",route="${route}",status="${status}"} `;
  const line = (await scraped.text()).split('\n').find((each) => each.startsWith(series));
  return line === undefined ? undefined : Number(line.slice(series.length));
}
