import { describe, expect, it } from 'vitest';
import { perSourceBudget } from '../../platform/diagnostics/per-source-budget.js';
import { ringBufferLog } from '../../platform/diagnostics/ring-buffer-log.js';

type Entry = { source: string; n: number };

function budgeted(perMinute: number) {
  let clock = Date.UTC(2026, 0, 1, 12, 0, 30);
  let dropped = 0;
  const store = ringBufferLog<Entry>(1_000);
  const log = perSourceBudget(store, { perMinute, sourceOf: (entry) => entry.source, onDropped: () => { dropped += 1; }, now: () => clock });
  return {
    log,
    kept: async () => (await store.older(undefined, 1_000)).map((entry) => `${entry.value.source}#${entry.value.n}`).reverse(),
    dropped: () => dropped,
    advance: (ms: number) => { clock += ms; },
  };
}

describe('perSourceBudget', () => {
  it('keeps the first perMinute entries of each source in a minute and counts the rest as dropped', async () => {
    const b = budgeted(2);
    for (let n = 1; n <= 5; n++) b.log.append({ source: 'flood', n });
    b.log.append({ source: 'partner', n: 1 });
    expect(await b.kept()).toEqual(['flood#1', 'flood#2', 'partner#1']);
    expect(b.dropped()).toBe(3);
  });

  it('starts every source over in the next minute', async () => {
    const b = budgeted(1);
    b.log.append({ source: 'a', n: 1 });
    b.log.append({ source: 'a', n: 2 });
    b.advance(30_000);
    b.log.append({ source: 'a', n: 3 });
    expect(await b.kept()).toEqual(['a#1', 'a#3']);
    expect(b.dropped()).toBe(1);
  });

  it('reads through to the store', async () => {
    const b = budgeted(10);
    b.log.append({ source: 'a', n: 1 });
    expect((await b.log.older(undefined, 10)).map((entry) => entry.value.n)).toEqual([1]);
  });
});
