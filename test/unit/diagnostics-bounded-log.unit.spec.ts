import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { LostEntry } from '../../platform/diagnostics/bounded-log.js';
import { sanitizedExcerpt } from '../../platform/diagnostics/excerpt.js';
import { redisStreamLog } from '../../platform/diagnostics/redis-stream-log.js';
import { ringBufferLog } from '../../platform/diagnostics/ring-buffer-log.js';

describe('sanitizedExcerpt', () => {
  it('keeps short printable text as it is', () => {
    expect(sanitizedExcerpt('{"event_name":"purchase","order_id":"A-1"}', 256)).toBe('{"event_name":"purchase","order_id":"A-1"}');
  });

  it('writes controls, bidi overrides and lone surrogates as escapes', () => {
    expect(sanitizedExcerpt('a\nb\tc\u0000d\u202ee\ud800f\u2028', 256)).toBe('a\\nb\\tc\\u{0}d\\u{202e}e\\u{d800}f\\u{2028}');
  });

  it('never exceeds its byte budget, cuts at a character boundary and marks the cut', () => {
    for (const text of ['x'.repeat(10_000), 'é'.repeat(300), '😀'.repeat(200), '\u0001'.repeat(500), `${'a'.repeat(253)}😀😀`]) {
      const excerpt = sanitizedExcerpt(text, 256);
      expect(Buffer.byteLength(excerpt), text.slice(0, 10)).toBeLessThanOrEqual(256);
      expect(excerpt.endsWith('…')).toBe(true);
      expect(excerpt).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    }
    expect(sanitizedExcerpt('a'.repeat(256), 256)).toBe('a'.repeat(256));
  });
});

describe('ringBufferLog', () => {
  it('keeps the newest entries only, and pages both ways by id', async () => {
    const log = ringBufferLog<number>(5);
    for (let value = 1; value <= 8; value += 1) log.append(value);
    const values = (entries: { value: number }[]) => entries.map((entry) => entry.value);
    expect(values(await log.older(undefined, 10))).toEqual([8, 7, 6, 5, 4]);
    expect(values(await log.older(undefined, 2))).toEqual([8, 7]);
    expect(values(await log.older('7', 2))).toEqual([6, 5]);
    expect(values(await log.older('5', 10))).toEqual([4]);
    expect(values(await log.newer('5', 10))).toEqual([6, 7, 8]);
    // A cursor older than what is kept starts at the oldest kept.
    expect(values(await log.newer('1', 2))).toEqual([4, 5]);
  });
});

/** A Redis whose pipelines answer only when told to (or fail). */
function fakeRedis(mode: 'hang' | 'fail' | 'ok') {
  const sent: unknown[][] = [];
  const pending: (() => void)[] = [];
  const redis = {
    pipeline() {
      const commands: unknown[][] = [];
      return {
        xadd: (...args: unknown[]) => commands.push(args),
        exec: () => {
          sent.push(...commands);
          if (mode === 'fail') return Promise.reject(new Error('Connection is closed.'));
          const results = commands.map(() => [null, '1-0']);
          if (mode === 'ok') return Promise.resolve(results);
          return new Promise((resolve) => pending.push(() => resolve(results)));
        },
      };
    },
  };
  return { redis: redis as unknown as Redis, sent, release: () => pending.splice(0).forEach((resolve) => resolve()) };
}

describe('redisStreamLog', () => {
  it('appends with XADD MAXLEN ~, in pipelines, in the background', async () => {
    const fake = fakeRedis('ok');
    const log = redisStreamLog<{ n: number }>(fake.redis, { key: 'k', maxLength: 500, batchSize: 2 });
    for (let n = 0; n < 5; n += 1) log.append({ n });
    await log.flush();
    expect(fake.sent).toEqual([0, 1, 2, 3, 4].map((n) => ['k', 'MAXLEN', '~', 500, '*', 'v', JSON.stringify({ n })]));
  });

  it('returns at once while Redis does not answer, and loses what exceeds its queue', async () => {
    const fake = fakeRedis('hang');
    const lost: [LostEntry, number][] = [];
    const log = redisStreamLog<number>(fake.redis, { key: 'k', maxLength: 10, maxPending: 3, batchSize: 1, onLost: (why, count) => lost.push([why, count]) });
    // The first is in flight (Redis does not answer), three wait, the rest are dropped.
    for (let n = 0; n < 6; n += 1) log.append(n);
    expect(lost).toEqual([['queue_full', 1], ['queue_full', 1]]);
    fake.release();
    await new Promise((resolve) => setImmediate(resolve));
    fake.release();
    await new Promise((resolve) => setImmediate(resolve));
    fake.release();
    await new Promise((resolve) => setImmediate(resolve));
    fake.release();
    await log.flush();
    expect(fake.sent.map((args) => args.at(-1))).toEqual(['0', '1', '2', '3']);
  });

  it('counts failed writes as lost and never throws to the caller', async () => {
    const fake = fakeRedis('fail');
    const lost: [LostEntry, number][] = [];
    const log = redisStreamLog<number>(fake.redis, { key: 'k', maxLength: 10, onLost: (why, count) => lost.push([why, count]) });
    expect(() => log.append(1)).not.toThrow();
    log.append(2);
    await log.flush();
    expect(lost.every(([why]) => why === 'store_error')).toBe(true);
    expect(lost.reduce((sum, [, count]) => sum + count, 0)).toBe(2);
  });
});
