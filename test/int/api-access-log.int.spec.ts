import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
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
