import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eachAtMost } from '../../platform/async/each-at-most.js';

describe('eachAtMost', () => {
  it('runs every item once, never more than the limit at a time (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 40 }), fc.integer({ min: 1, max: 8 }), async (ticks, limit) => {
        let running = 0;
        let most = 0;
        const done: number[] = [];
        await eachAtMost([...ticks.keys()], limit, async (index) => {
          running += 1;
          most = Math.max(most, running);
          for (let tick = 0; tick < ticks[index]!; tick += 1) await Promise.resolve();
          done.push(index);
          running -= 1;
        });
        expect(done.sort((a, b) => a - b)).toEqual([...ticks.keys()]);
        expect(most).toBeLessThanOrEqual(limit);
        if (ticks.length >= limit) expect(most).toBe(limit);
      }),
    );
  });

  it('throws the first failure after the runs under way settle, and starts no item after it', async () => {
    const started: number[] = [];
    let settledAfterFailure = false;
    const run = eachAtMost([0, 1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      if (item === 0) throw new Error('item 0 failed');
      if (item === 1) {
        await new Promise((resolve) => setImmediate(resolve));
        settledAfterFailure = true;
      }
    });
    await expect(run).rejects.toThrow('item 0 failed');
    expect(settledAfterFailure).toBe(true);
    expect(started).toEqual([0, 1]);
  });
});
