import { describe, expect, it } from 'vitest';
import { PageCache, pageCacheOf } from '../../services/api/routes/locations/page-cache.js';

const page = (bytes: number, fill = 'x') => Buffer.alloc(bytes, fill);
/** Pages are kept from the second time their search is answered. */
const keep = (cache: PageCache, key: string, value: Buffer) => {
  cache.set(key, value);
  return cache.set(key, value);
};

describe('PageCache', () => {
  it('keeps a page only once its search is asked for a second time', () => {
    const cache = new PageCache(1600);
    cache.set('once', page(10));
    expect(cache.get('once')).toBeUndefined();
    cache.set('once', page(10));
    expect(cache.get('once')).toBeDefined();
  });

  it('keeps pages within its byte budget, dropping the least recently used first', () => {
    // Keys count too: 16 pages of 100 bytes with keys of up to 9 characters fit in 1760.
    const cache = new PageCache(1760);
    keep(cache, 'a', page(100, 'a'));
    keep(cache, 'b', page(100, 'b'));
    keep(cache, 'c', page(100, 'c'));
    expect(cache.get('a')?.toString()).toBe('a'.repeat(100)); // a is now the most recently used
    for (let i = 0; i < 13; i++) keep(cache, `filler ${i}`, page(100));
    // 16 pages of 100 bytes fit; one more drops b, the least recently used.
    keep(cache, 'd', page(100, 'd'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.size).toBe(16);
  });

  it('counts a replaced page once and does not keep a page (with its key) of more than a sixteenth of the budget', () => {
    const cache = new PageCache(1600);
    for (let i = 0; i < 20; i++) cache.set('same', page(90));
    keep(cache, 'other', page(90));
    expect(cache.size).toBe(2);
    const big = page(98); // 101 with its key

    expect(keep(cache, 'big', big)).toBe(big);
    expect(cache.get('big')).toBeUndefined();
  });

  it('counts the keys in its budget: long searches with small pages cannot hold more than it', () => {
    // A LEGACY key holds q as sent (up to the 16 KiB request line): an empty page is about 180
    // bytes, so counting pages alone let keys hold many times the budget.
    const cache = new PageCache(16_000);
    for (let i = 0; i < 100; i++) keep(cache, `${i}`.padEnd(500, 'q'), page(10));
    expect(cache.size).toBe(Math.floor(16_000 / 510));
  });

  it('remembers searches asked once within an eighth of its budget in key characters', () => {
    const cache = new PageCache(16_000);
    cache.set('first', page(10));
    for (let i = 0; i < 10; i++) cache.set(`${i}`.padEnd(500, 'q'), page(10));
    // 5,000 characters of keys asked once since: 'first' was forgotten, so this is its first time again.
    cache.set('first', page(10));
    expect(cache.get('first')).toBeUndefined();
  });

  it('gives each index build its own cache', () => {
    const first = {};
    const second = {};
    keep(pageCacheOf(first), 'q', page(10, '1'));
    expect(pageCacheOf(first).get('q')?.toString()).toBe('1'.repeat(10));
    expect(pageCacheOf(second).get('q')).toBeUndefined();
  });
});
