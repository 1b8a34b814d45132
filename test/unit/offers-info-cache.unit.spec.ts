import { describe, expect, it } from 'vitest';
import { invalidatedCache } from '../../platform/cache/invalidated-cache.js';
import type { AppliedPosition } from '../../platform/projection/offsets.js';
import { openOfferInfoCache } from '../../services/api/routes/offers/info-cache.js';

/** Watermarks that deliver the commits a test announces. */
function announcer() {
  const listeners = new Set<(position: AppliedPosition | undefined) => void>();
  return {
    onApplied(listener: (position: AppliedPosition | undefined) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    hearing: () => true,
    commit(projection: string) {
      for (const listener of listeners) listener({ projection, topic: 't', partition: 0, next: '1' });
    },
  };
}

describe('invalidatedCache with a weight budget', () => {
  it('keeps the newest entries whose weights fit the budget, dropping the oldest, and never one heavier than the budget', async () => {
    const cache = invalidatedCache<string, string>({ maxEntries: 100, maxWeight: 10, weigh: (_key, value) => value.length });
    for (const key of ['a', 'b', 'c']) await cache.get(key, async () => 'xxxx');
    expect(cache.size).toBe(2);
    let loads = 0;
    await cache.get('a', async () => ((loads += 1), 'xxxx'));
    expect(loads).toBe(1);
    await cache.get('huge', async () => 'x'.repeat(11));
    expect(cache.size).toBe(2);
    await cache.get('huge', async () => ((loads += 1), 'x'.repeat(11)));
    expect(loads).toBe(2);
    cache.invalidate();
    for (const key of ['p', 'q']) await cache.get(key, async () => 'xxxxx');
    expect(cache.size).toBe(2);
  });
});

describe('the offer info answers', () => {
  it('are bounded by their total size, not only by their count: many variants of one query cannot fill the memory', async () => {
    const watermarks = announcer();
    const cache = openOfferInfoCache(watermarks, { maxEntries: 1_000, maxAnswerChars: 10_000 });
    const answer = 'a'.repeat(900);
    for (let variant = 0; variant < 100; variant += 1) {
      expect(await cache.answer(`offerurl=link%3Fv%3D${variant}`, async () => answer)).toBe(answer);
    }
    const { answers } = cache.stats();
    expect(answers.size).toBeGreaterThan(0);
    expect(answers.size * answer.length).toBeLessThanOrEqual(10_000);
    watermarks.commit('offers');
    expect(cache.stats().answers.size).toBe(0);
    cache.close();
  });
});
