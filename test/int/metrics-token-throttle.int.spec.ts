import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_FAILURES } from '../../platform/http/token-throttle.js';
import { createTestApp } from '../support/app.js';

const METRICS_TOKEN = 'metrics-token-for-throttle-tests-0123456789';
let testApp: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  testApp = await createTestApp({ env: { METRICS_TOKEN } });
});
afterAll(async () => {
  await testApp?.close();
});

// Each test its own documentation address: the counts are per client address and last a minute.
const scrape = (remoteAddress: string, token?: string) =>
  testApp.app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

describe('wrong metrics tokens are counted per client address, as wrong admin tokens are (real Redis)', () => {
  it(`after ${TOKEN_FAILURES} wrong tokens /metrics refuses every token from that address with 429, the right one too; other addresses go on`, async () => {
    for (let i = 0; i < TOKEN_FAILURES; i++) expect((await scrape('198.51.100.21', `wrong-token-${i}`)).statusCode).toBe(401);
    const refused = await scrape('198.51.100.21', METRICS_TOKEN);
    expect(refused.statusCode).toBe(429);
    const body = refused.json();
    expect(body).toMatchObject({ code: 'RATE_LIMITED', data: {} });
    expect(body.extra.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(body.extra.retry_after_seconds).toBeLessThanOrEqual(60);
    expect(refused.headers['retry-after']).toBe(String(body.extra.retry_after_seconds));
    // No token is no guess: still the 401 that says one is needed.
    expect((await scrape('198.51.100.21')).statusCode).toBe(401);
    const other = await scrape('198.51.100.22', METRICS_TOKEN);
    expect(other.statusCode).toBe(200);
    expect(other.body).toContain('http_request_duration_seconds');
  });

  it('counts in Redis under the environment prefix, apart from the admin token\'s counts', async () => {
    expect((await scrape('198.51.100.23', 'wrong')).statusCode).toBe(401);
    expect(await testApp.runtime.redis!.get(`${testApp.topicPrefix}ratelimit:metrics-token:198.51.100.23`)).toBe('1');
    expect(await testApp.runtime.redis!.exists(`${testApp.topicPrefix}ratelimit:admin-token:198.51.100.23`)).toBe(0);
  });

  it('the right token and requests without one count nothing', async () => {
    for (let i = 0; i < TOKEN_FAILURES + 2; i++) {
      expect((await scrape('198.51.100.24', METRICS_TOKEN)).statusCode).toBe(200);
      expect((await scrape('198.51.100.24')).statusCode).toBe(401);
    }
    expect(await testApp.runtime.redis!.exists(`${testApp.topicPrefix}ratelimit:metrics-token:198.51.100.24`)).toBe(0);
  });

  it('says so in the API description', async () => {
    const document = (await testApp.app.inject('/openapi.json')).json();
    const refused = document.paths['/metrics'].get.responses['429'];
    expect(refused.content['application/json'].examples.RATE_LIMITED.value).toMatchObject({ code: 'RATE_LIMITED', extra: { retry_after_seconds: expect.any(Number) } });
  });
});
