import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SHARED_COUNT_PAUSE_MS } from '../../platform/http/rate-limit-store.js';
import { openRuntime } from '../../platform/runtime.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { createTestApp } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The public location routes while a backend fails: they answer from the catalogs held in memory,
 * and the rate limit holds in this process while Redis cannot count (Redis never holds the only
 * copy of a limit). A Redis of this file's own, so it can be stopped and paused.
 */
const LIMIT = 3;
let redis: PrivateRedis;
let t: Awaited<ReturnType<typeof createTestApp>>;
let client = 0;

beforeAll(async () => {
  redis = await startPrivateRedis();
  t = await createTestApp({ env: { REDIS_URL: redis.url, LOCATION_RATE_LIMIT: String(LIMIT), REDIS_COMMAND_TIMEOUT_MS: '500' } });
  await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
});
afterAll(async () => {
  await t?.close();
  await redis?.close();
});

/** A client address of its own per test, so counts never carry over. */
const nextClient = () => `203.0.113.${(client += 1)}`;
const get = (url: string, remoteAddress: string) => t.app.inject({ method: 'GET', url, remoteAddress });
const ready = async () => (await t.app.inject({ method: 'GET', url: '/readyz' })).json() as { code: string; data?: { backends?: Record<string, string> }; extra: { backends?: Record<string, string> } };

/** LIMIT answers, then 429, for one client. */
async function expectLimitedAfter(remoteAddress: string) {
  const urls = ['/v1/locations/2250', '/v1/locations/search?q=bav&catalog=FULL', '/v1/locations/resolve?subdivision_code=US-CA'];
  for (let i = 0; i < LIMIT; i += 1) {
    const response = await get(urls[i % urls.length]!, remoteAddress);
    expect(response.statusCode, response.body).toBe(200);
  }
  const limited = await get('/v1/locations/2250', remoteAddress);
  expect(limited.statusCode).toBe(429);
  expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED', data: {}, extra: { retry_after_seconds: expect.any(Number) } });
}

describe('location routes when Redis fails', () => {
  it('Redis stopped: every route answers, the limit is counted in this process, /readyz stays ready and names redis; back once it is', async () => {
    await redis.stop();
    try {
      await expectLimitedAfter(nextClient());
      // Not unready: a balancer would take every API out for a cache that holds no only copy.
      expect(await ready()).toMatchObject({
        code: 'SUCCESS',
        // Why, in the connection's words (not the client's "Stream isn't writeable").
        data: { status: 'ready', backends: { redis: expect.stringMatching(/^unavailable: not connected \((the connection closed|.*ECONNREFUSED.*)\) \(rate limits count in this process meanwhile; a process starting now would stop\)$/), database: 'ok' } },
      });
    } finally {
      await redis.start();
    }
    await waitFor(async () => (await ready()).data?.backends?.redis === 'ok', { what: 'redis reported again once it is back' });
    await expectLimitedAfter(nextClient());
  });

  it('after Redis fails a count, counts stay in this process for a pause (one wait on a stalled Redis, not one per request), then go to Redis again', async () => {
    const inspect = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await inspect.connect();
    const keysOf = (address: string) => inspect.keys(`*${address}*`);
    // The pause runs on the monotonic clock: faked from where it stands, then moved past any pause
    // an earlier failure began, so counts go to Redis.
    const standing = performance.now();
    vi.useFakeTimers({ toFake: ['performance'] });
    vi.advanceTimersByTime(standing);
    const pastThePause = () => vi.advanceTimersByTime(SHARED_COUNT_PAUSE_MS + 1_000);
    try {
      pastThePause();
      const before = nextClient();
      expect((await get('/v1/locations/2250', before)).statusCode).toBe(200);
      expect(await keysOf(before)).toHaveLength(1);
      redis.pause();
      try {
        expect((await get('/v1/locations/2250', nextClient())).statusCode).toBe(200);
      } finally {
        redis.resume();
      }
      // Redis answers again, but within the pause no count is sent to it, and the limit still holds.
      const paused = nextClient();
      await expectLimitedAfter(paused);
      expect(await keysOf(paused)).toEqual([]);
      pastThePause();
      const after = nextClient();
      await expectLimitedAfter(after);
      expect(await keysOf(after)).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      inspect.disconnect();
    }
  });

  it('Redis paused (connected, answering nothing): routes still answer and limit, /readyz answers naming redis instead of hanging', async () => {
    redis.pause();
    try {
      await expectLimitedAfter(nextClient());
      expect(await ready()).toMatchObject({ code: 'SUCCESS', data: { backends: { redis: expect.stringMatching(/^unavailable: /) } } });
    } finally {
      redis.resume();
    }
    await waitFor(async () => (await ready()).data?.backends?.redis === 'ok', { what: 'redis reported again once it answers' });
  });
});

describe('a Redis outage in the service log', () => {
  it('is said once when it starts and once when it ends (requests go on meanwhile, so nothing else tells)', async () => {
    const lines: string[] = [];
    const runtime = await openRuntime(t.config, { log: (line) => lines.push(line) });
    try {
      await redis.stop();
      try {
        await waitFor(() => lines.some((line) => line.startsWith('Redis (REDIS_URL) unavailable: ')), { what: 'the outage said' });
      } finally {
        await redis.start();
      }
      await waitFor(() => lines.includes('Redis (REDIS_URL) answers again: rate limits are shared again'), { what: 'the end of the outage said' });
      expect(lines.filter((line) => line.startsWith('Redis (REDIS_URL)'))).toHaveLength(2);
    } finally {
      await runtime.close();
    }
  });
});

describe('a hung Redis in the service log', () => {
  it('is said though the connection stays up (a paused server sends no error), and its end too', async () => {
    const lines: string[] = [];
    const runtime = await openRuntime(t.config, { log: (line) => lines.push(line) });
    try {
      redis.pause();
      try {
        await waitFor(() => lines.some((line) => line.startsWith('Redis (REDIS_URL) unavailable: ') && line.includes('(connected, not answering)')), { what: 'the hang said', timeoutMs: 15_000 });
      } finally {
        redis.resume();
      }
      await waitFor(() => lines.includes('Redis (REDIS_URL) answers again: rate limits are shared again'), { what: 'the end of the hang said', timeoutMs: 15_000 });
      expect(lines.filter((line) => line.startsWith('Redis (REDIS_URL)'))).toHaveLength(2);
    } finally {
      await runtime.close();
    }
  });
});

describe('a Redis at its maxmemory with noeviction (answers PING and reads, refuses every write)', () => {
  /** Runs `during` while the file's Redis refuses writes (OOM), then lets it take them again. */
  async function whileOutOfMemory(during: () => Promise<unknown>) {
    const inspect = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    try {
      await inspect.config('SET', 'maxmemory-policy', 'noeviction');
      await inspect.config('SET', 'maxmemory', '1');
      try {
        await during();
      } finally {
        await inspect.config('SET', 'maxmemory', '0');
      }
    } finally {
      inspect.disconnect();
    }
  }

  it('routes answer and limit in this process; /readyz stays ready and says Redis refuses writes, ok again once it takes them', async () => {
    await whileOutOfMemory(async () => {
      await expectLimitedAfter(nextClient());
      expect(await ready()).toMatchObject({
        code: 'SUCCESS',
        data: { status: 'ready', backends: { redis: expect.stringMatching(/^unavailable: refuses writes: OOM .* \(rate limits count in this process and refused postbacks are not kept meanwhile\)$/) } },
      });
    });
    await waitFor(async () => (await ready()).data?.backends?.redis === 'ok', { what: 'redis reported again once it takes writes' });
  });

  it('is said in the service log once when it starts and once when it ends', async () => {
    const lines: string[] = [];
    const runtime = await openRuntime(t.config, { log: (line) => lines.push(line) });
    try {
      await whileOutOfMemory(() =>
        waitFor(() => lines.some((line) => line.startsWith('Redis (REDIS_URL) unavailable: OOM ') && line.includes('(connected, refusing writes)')), { what: 'the refused writes said', timeoutMs: 15_000 }));
      await waitFor(() => lines.includes('Redis (REDIS_URL) answers again: rate limits are shared again'), { what: 'the end said', timeoutMs: 15_000 });
      expect(lines.filter((line) => line.startsWith('Redis (REDIS_URL)'))).toHaveLength(2);
    } finally {
      await runtime.close();
    }
  });
});

describe('location routes when Postgres refuses connections', () => {
  it('answer from the catalogs this process holds (both catalogs, every route), while /readyz names the database', async () => {
    const remoteAddress = nextClient();
    // Both catalogs held in memory first.
    expect((await get('/v1/locations/2250?catalog=FULL', remoteAddress)).statusCode).toBe(200);
    expect((await get('/v1/locations/2250', remoteAddress)).statusCode).toBe(200);
    await t.database.whileRefusing(async () => {
      // Past the once-a-second look at which release is current (on the monotonic clock, faked
      // from where it stands), without waiting for it.
      const standing = performance.now();
      vi.useFakeTimers({ toFake: ['performance'] });
      try {
        vi.advanceTimersByTime(standing + 10_000);
        for (const url of ['/v1/locations/2250?catalog=FULL', '/v1/locations/search?catalog=FULL&q=fra', '/v1/locations/2250', '/v1/locations/resolve?subdivision_code=US-CA']) {
          const response = await get(url, nextClient());
          expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
        }
      } finally {
        vi.useRealTimers();
      }
      expect(await ready()).toMatchObject({ code: 'NOT_READY', extra: { backends: { database: expect.stringMatching(/^unavailable: /) } } });
    });
    await waitFor(async () => (await ready()).code === 'SUCCESS', { what: 'readiness once Postgres takes connections again' });
  });
});
