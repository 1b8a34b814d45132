import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eventCounter, SHARED_COUNT_PAUSE_MS } from '../../platform/http/rate-limit-store.js';

/**
 * After Redis fails a count, counts stay in this process for SHARED_COUNT_PAUSE_MS, then go to
 * Redis again, however the wall clock is stepped meanwhile (an NTP correction): stepped back ten
 * minutes, a pause that lasted ten minutes left every limit counted per process (each API
 * process allowing the whole limit) for as long. Redis is a fake whose answers the test decides:
 * only which store counts is under test.
 */
describe('the pause of shared counts after a Redis failure when the wall clock steps', () => {
  afterEach(() => vi.useRealTimers());

  it.each([
    ['back', -600_000],
    ['forward', 600_000],
  ])('ends after the pause, not the pause plus or minus the step (%s)', async (_direction, step) => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    let failing = true;
    let sharedCounts = 0;
    const redis = {
      rateLimit: (_key: string, windowMs: number, _max: number, _continue: boolean, _backoff: boolean, done: (error: Error | null, result?: [number, number]) => void) => {
        if (failing) return done(new Error('Command timed out'));
        sharedCounts += 1;
        done(null, [sharedCounts, windowMs]);
      },
      rateLimitRead: (_key: string, done: (error: Error | null, result?: [number, number]) => void) => done(null, [sharedCounts, 0]),
    } as unknown as Redis;
    const counter = eventCounter(redis, 'test:', 60_000);

    await counter.add('client');
    failing = false;
    vi.setSystemTime(Date.now() + step);
    await vi.advanceTimersByTimeAsync(SHARED_COUNT_PAUSE_MS - 100);
    await counter.add('client');
    expect(sharedCounts).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    await counter.add('client');
    expect(sharedCounts).toBe(1);
  });
});
