import rateLimit from '@fastify/rate-limit';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalWindowStore, type Counted } from '../../platform/http/local-window-store.js';
import { eventCounter } from '../../platform/http/rate-limit-store.js';
import type { Runtime } from '../../platform/runtime.js';
import { perClientRateLimit } from '../../services/api/client-rate-limit.js';

/**
 * Limits counted in this process (no Redis, or while it cannot answer) keep their one-minute
 * windows when the machine's wall clock is stepped back (an NTP correction): a client over its
 * limit may send again a minute after its window opened, not once the wall clock has made up
 * the step, and is told so. Only Date is stepped; the monotonic clock is faked and moved on.
 */
const STEP_MS = 10 * 60_000;

describe('in-process rate limits when the wall clock steps back', () => {
  afterEach(() => vi.useRealTimers());

  it('a route limit refuses with a Retry-After within the window, and lets the client in once it ends', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const runtime = { redis: undefined, config: { topicPrefix: '' } } as unknown as Runtime;
    const app = Fastify();
    await app.register(rateLimit, perClientRateLimit(runtime, 'test', 2));
    app.get('/limited', async () => ({ ok: true }));
    const get = () => app.inject({ method: 'GET', url: '/limited', remoteAddress: '203.0.113.7' });
    try {
      expect((await get()).statusCode).toBe(200);
      expect((await get()).statusCode).toBe(200);
      vi.advanceTimersByTime(10_000);
      vi.setSystemTime(Date.now() - STEP_MS);
      const refused = await get();
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(50);
      vi.advanceTimersByTime(50_001);
      expect((await get()).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('a count of events (failed sign-ins) starts over a minute after its window opened', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const counter = eventCounter(undefined, 'test:', 60_000);
    for (let guess = 0; guess < 3; guess += 1) await counter.add('203.0.113.8');
    vi.setSystemTime(Date.now() - STEP_MS);
    vi.advanceTimersByTime(30_000);
    expect(await counter.read('203.0.113.8')).toEqual({ current: 3, ttl: 30_000 });
    vi.advanceTimersByTime(30_001);
    expect(await counter.read('203.0.113.8')).toEqual({ current: 0, ttl: 0 });
    expect((await counter.add('203.0.113.8')).current).toBe(1);
  });

  it('keeps the counts of the 5,000 keys counted last (a flood of addresses forgets the least recent, never a recent one)', () => {
    const store = new LocalWindowStore();
    const count = (key: string) => {
      let counted: Counted | null = null;
      store.incr(key, (_error, result) => (counted = result), 60_000);
      return counted!.current;
    };
    count('first');
    count('second');
    count('first');
    for (let address = 0; address < 4_999; address += 1) count(`flood-${address}`);
    expect(count('first')).toBe(3);
    expect(count('second')).toBe(1);
  });
});
