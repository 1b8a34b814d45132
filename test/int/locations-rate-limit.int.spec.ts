import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';

// A small limit through the real setting; the runtime's unique TOPIC_PREFIX namespaces the Redis
// keys, so parallel test files and earlier runs never share a counter.
const LIMIT = 3;
let testApp: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  testApp = await createTestApp({ env: { LOCATION_RATE_LIMIT: String(LIMIT) } });
});
afterAll(async () => {
  await testApp?.close();
});

const get = (url: string, remoteAddress = '203.0.113.7') => testApp.app.inject({ method: 'GET', url, remoteAddress });

describe('location routes rate limit (real Redis)', () => {
  it('counts in Redis under the environment prefix', async () => {
    const response = await get('/v1/locations/2840', '203.0.113.1');
    expect(response.statusCode).not.toBe(429);
    const keys = await testApp.runtime.redis!.keys(`${testApp.topicPrefix}ratelimit:locations:*`);
    expect(keys).toEqual([`${testApp.topicPrefix}ratelimit:locations:203.0.113.1`]);
  });

  it('answers 429 in the envelope with retry_after_seconds once a client exceeds the limit', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await get('/v1/locations/search?q=a')).statusCode).not.toBe(429);
    const limited = await get('/v1/locations/search?q=a');
    expect(limited.statusCode).toBe(429);
    const body = limited.json();
    expect(Object.keys(body).sort()).toEqual(['code', 'data', 'extra', 'message']);
    expect(body.code).toBe('RATE_LIMITED');
    expect(body.message).toMatch(/too many requests/);
    expect(body.data).toEqual({});
    expect(Number.isInteger(body.extra.retry_after_seconds)).toBe(true);
    expect(body.extra.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(body.extra.retry_after_seconds).toBeLessThanOrEqual(60);
    expect(limited.headers['retry-after']).toBe(String(body.extra.retry_after_seconds));
  });

  it('limits every location route, per client address', async () => {
    expect((await get('/v1/locations/resolve?country=US')).statusCode).toBe(429);
    expect((await get('/v1/locations/2840')).statusCode).toBe(429);
    expect((await get('/v1/locations/2840', '198.51.100.9')).statusCode).not.toBe(429);
  });
});
