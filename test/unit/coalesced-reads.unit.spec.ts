import { describe, expect, it } from 'vitest';
import { coalescedReads } from '../../platform/db/coalesced-reads.js';

/** A loader that records each call and answers when told to. */
function recordingLoader() {
  const calls: string[][] = [];
  const releases: (() => void)[] = [];
  const load = (keys: string[]) =>
    new Promise<Map<string, string>>((resolve) => {
      calls.push(keys);
      releases.push(() => resolve(new Map(keys.filter((key) => !key.startsWith('unknown')).map((key) => [key, `value of ${key}`]))));
    });
  return { calls, releases, load };
}

describe('coalescedReads', () => {
  it('reads keys asked for in one turn with one load, each caller getting its own value', async () => {
    const loader = recordingLoader();
    const reads = coalescedReads(loader.load);
    const answers = Promise.all([reads.get('a'), reads.get('b'), reads.get('a'), reads.get('unknown-1')]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(loader.calls).toEqual([['a', 'b', 'unknown-1']]);
    loader.releases[0]!();
    expect(await answers).toEqual(['value of a', 'value of b', 'value of a', undefined]);
  });

  it('keys asked for during a load wait for the next one; nothing is kept between loads', async () => {
    const loader = recordingLoader();
    const reads = coalescedReads(loader.load);
    const first = reads.get('a');
    await new Promise((resolve) => setImmediate(resolve));
    const second = [reads.get('a'), reads.get('c')];
    await new Promise((resolve) => setImmediate(resolve));
    expect(loader.calls).toEqual([['a']]);
    loader.releases[0]!();
    expect(await first).toBe('value of a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(loader.calls).toEqual([['a'], ['a', 'c']]);
    loader.releases[1]!();
    expect(await Promise.all(second)).toEqual(['value of a', 'value of c']);
  });

  it('a failed load rejects its callers only', async () => {
    let fail = true;
    const reads = coalescedReads(async (keys: string[]) => {
      if (fail) throw new Error('read model unreachable');
      return new Map(keys.map((key) => [key, key]));
    });
    await expect(reads.get('a')).rejects.toThrow('read model unreachable');
    fail = false;
    expect(await reads.get('a')).toBe('a');
  });
});
