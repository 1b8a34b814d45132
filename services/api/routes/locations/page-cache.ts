/**
 * Recently served search pages, one cache per index build (a FULL release or a LEGACY registry
 * build): the same search on the same build always gives the same bytes, and type-ahead traffic
 * asks for the same short prefixes over and over. A new build starts with an empty cache, and the
 * old one goes with its build. Bounded by bytes, each page's key counted with it (a key's
 * characters as bytes); the least recently used pages go first. A LEGACY key holds q as sent, up
 * to the 16 KiB request line, while a page that finds nothing is under 200 bytes: counting pages
 * alone let the keys of such searches hold several times the budget.
 *
 * A page is kept only when its search is asked for a second time. Pages of searches asked once
 * would only churn the cache, and each kept page outlives the young generation, so the collector
 * frees it in a full collection: caching every miss made uncached searches several times slower
 * (measured, `npm run bench -- locations`, the "uncached" scenario).
 */
const PAGE_CACHE_BYTES = 16 * 2 ** 20;
/** How many searches asked once are remembered (keys only), and in all at most an eighth of the budget in key characters. */
const SEEN_ONCE_KEYS = 16_384;

export class PageCache {
  /** Map order is use order: the first key is the least recently used. */
  private readonly pages = new Map<string, Buffer>();
  private bytes = 0;
  /** Searches asked once since the set was last cleared. */
  private seenOnce = new Set<string>();
  private seenOnceChars = 0;

  constructor(private readonly budget = PAGE_CACHE_BYTES) {}

  get size(): number {
    return this.pages.size;
  }

  get(key: string): Buffer | undefined {
    const page = this.pages.get(key);
    if (page !== undefined) {
      this.pages.delete(key);
      this.pages.set(key, page);
    }
    return page;
  }

  /**
   * Keeps `page` when its search was asked for before (and it alone, with its key, takes at most
   * a sixteenth of the budget); returns it.
   */
  set(key: string, page: Buffer): Buffer {
    if (key.length + page.length > this.budget / 16) return page;
    if (!this.seenOnce.delete(key)) {
      if (this.seenOnce.size >= SEEN_ONCE_KEYS || this.seenOnceChars + key.length > this.budget / 8) {
        this.seenOnce = new Set();
        this.seenOnceChars = 0;
      }
      this.seenOnce.add(key);
      this.seenOnceChars += key.length;
      return page;
    }
    this.seenOnceChars -= key.length;
    const held = this.pages.get(key);
    if (held !== undefined) {
      this.bytes -= key.length + held.length;
      this.pages.delete(key);
    }
    this.pages.set(key, page);
    this.bytes += key.length + page.length;
    for (const [oldest, old] of this.pages) {
      if (this.bytes <= this.budget) break;
      this.pages.delete(oldest);
      this.bytes -= oldest.length + old.length;
    }
    return page;
  }
}

const caches = new WeakMap<object, PageCache>();

/** The page cache of one index build. */
export function pageCacheOf(build: object): PageCache {
  let cache = caches.get(build);
  if (cache === undefined) caches.set(build, (cache = new PageCache()));
  return cache;
}
