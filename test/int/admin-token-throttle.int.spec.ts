import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';
import { TOKEN_FAILURES as ADMIN_TOKEN_FAILURES } from '../../platform/http/token-throttle.js';

const ADMIN_TOKEN = 'admin-token-for-throttle-tests-0123456789';
let testApp: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  testApp = await createTestApp({ env: { ADMIN_TOKEN } });
});
afterAll(async () => {
  await testApp?.close();
});

// Each test its own documentation address: the counts are per client address and last a minute.
const commands = (remoteAddress: string, token?: string) =>
  testApp.app.inject({ method: 'GET', url: '/admin/commands', remoteAddress, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
const signIn = (remoteAddress: string, token: string) =>
  testApp.app.inject({ method: 'POST', url: '/admin/login', remoteAddress, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ token, next: '/admin/postbacks' }).toString() });
const page = (remoteAddress: string, token: string) =>
  testApp.app.inject({ method: 'GET', url: '/admin/postbacks', remoteAddress, headers: { authorization: `Bearer ${token}` } });

describe('wrong admin tokens are counted per client address (real Redis)', () => {
  it(`after ${ADMIN_TOKEN_FAILURES} wrong tokens the admin API refuses every token from that address with 429, the right one too; other addresses go on`, async () => {
    for (let i = 0; i < ADMIN_TOKEN_FAILURES; i++) expect((await commands('198.51.100.1', `wrong-token-${i}`)).statusCode).toBe(401);
    const refused = await commands('198.51.100.1', ADMIN_TOKEN);
    expect(refused.statusCode).toBe(429);
    const body = refused.json();
    expect(body.code).toBe('RATE_LIMITED');
    expect(body.data).toEqual({});
    expect(body.extra.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(body.extra.retry_after_seconds).toBeLessThanOrEqual(60);
    expect(refused.headers['retry-after']).toBe(String(body.extra.retry_after_seconds));
    // No token is no guess: still the 401 that says one is needed.
    expect((await commands('198.51.100.1')).statusCode).toBe(401);
    expect((await commands('198.51.100.2', ADMIN_TOKEN)).statusCode).toBe(200);
  });

  it('counts in Redis under the environment prefix, for the window', async () => {
    expect((await commands('198.51.100.3', 'wrong')).statusCode).toBe(401);
    const key = `${testApp.topicPrefix}ratelimit:admin-token:198.51.100.3`;
    expect(await testApp.runtime.redis!.get(key)).toBe('1');
    const ttl = await testApp.runtime.redis!.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('the right token and requests without one count nothing', async () => {
    for (let i = 0; i < ADMIN_TOKEN_FAILURES + 2; i++) {
      expect((await commands('198.51.100.4', ADMIN_TOKEN)).statusCode).toBe(200);
      expect((await commands('198.51.100.4')).statusCode).toBe(401);
    }
    expect(await testApp.runtime.redis!.exists(`${testApp.topicPrefix}ratelimit:admin-token:198.51.100.4`)).toBe(0);
  });

  it('the sign-in form and the pages count with the admin API: once refused, the form answers 429 with the form and Retry-After', async () => {
    for (let i = 0; i < ADMIN_TOKEN_FAILURES - 2; i++) expect((await signIn('198.51.100.5', `wrong-${i}`)).statusCode).toBe(401);
    expect((await page('198.51.100.5', 'wrong-page')).statusCode).toBe(401);
    expect((await commands('198.51.100.5', 'wrong-api')).statusCode).toBe(401);
    const refused = await signIn('198.51.100.5', ADMIN_TOKEN);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.body).toMatch(/Too many wrong tokens were sent from your address: try again in \d+ s\./);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const pageRefused = await page('198.51.100.5', ADMIN_TOKEN);
    expect(pageRefused.statusCode).toBe(429);
    expect(pageRefused.body).toMatch(/Too many wrong tokens/);
    expect((await signIn('198.51.100.6', ADMIN_TOKEN)).statusCode).toBe(303);
  });

  it('an IPv6 client is counted by its /64, as the rate limits count', async () => {
    for (let i = 0; i < ADMIN_TOKEN_FAILURES; i++) expect((await commands(`2001:db8:1:2::${i + 1}`, `wrong-${i}`)).statusCode).toBe(401);
    expect((await commands('2001:db8:1:2:ffff::9', ADMIN_TOKEN)).statusCode).toBe(429);
    expect((await commands('2001:db8:1:3::1', ADMIN_TOKEN)).statusCode).toBe(200);
  });
});
