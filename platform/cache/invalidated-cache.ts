/**
 * An in-process cache of read-model values that is emptied, never expired: whoever owns it calls
 * `invalidate()` when the read model changes (a projector commit), and nothing else ever makes an
 * entry go away except the size bound.
 *
 * A load that started before an invalidation is answered but not kept: it may have read the rows
 * as they were before the change, and keeping it would outlive the change.
 */
export interface InvalidatedCache<K, V> {
  /**
   * The values of `keys`, loading the missing ones with one call of `load` (which answers every
   * key it is given); `keep(value)` false answers a loaded value without keeping it.
   */
  getMany(keys: readonly K[], load: (missing: K[]) => Promise<Map<K, V>>, keep?: (value: V) => boolean): Promise<Map<K, V>>;
  /** One value; `keep(value)` false answers it without keeping it (e.g. lookups that found nothing). */
  get(key: K, load: (key: K) => Promise<V>, keep?: (value: V) => boolean): Promise<V>;
  /** The kept value of `key`, or undefined when none is kept (nothing is loaded; counted as a hit only when found). */
  peek(key: K): V | undefined;
  invalidate(): void;
  readonly size: number;
  readonly stats: { hits: number; misses: number; invalidations: number };
}

export interface InvalidatedCacheOptions<K, V> {
  /** Entries kept at most (0 keeps nothing). */
  maxEntries: number;
  /** With `weigh`: the total weight kept at most (e.g. characters); a heavier value is never kept. */
  maxWeight?: number;
  weigh?: (key: K, value: V) => number;
  /** False while the invalidations may not be heard (see Watermarks.hearing): what is loaded then is answered, not kept. */
  keepWhile?: () => boolean;
}

export function invalidatedCache<K, V>(options: InvalidatedCacheOptions<K, V>): InvalidatedCache<K, V> {
  const entries = new Map<K, V>();
  const weights = new Map<K, number>();
  let totalWeight = 0;
  let generation = 0;
  const stats = { hits: 0, misses: 0, invalidations: 0 };
  const maxWeight = options.weigh ? (options.maxWeight ?? Infinity) : Infinity;

  const forget = (key: K) => {
    entries.delete(key);
    totalWeight -= weights.get(key) ?? 0;
    weights.delete(key);
  };
  const keep = (key: K, value: V, loadedIn: number) => {
    if (loadedIn !== generation || options.maxEntries <= 0 || options.keepWhile?.() === false) return;
    const weight = options.weigh?.(key, value) ?? 0;
    if (weight > maxWeight) return;
    forget(key);
    // Map keeps insertion order: past a bound, the oldest entries go.
    while (entries.size > 0 && (entries.size >= options.maxEntries || totalWeight + weight > maxWeight)) forget(entries.keys().next().value as K);
    entries.set(key, value);
    if (options.weigh) {
      weights.set(key, weight);
      totalWeight += weight;
    }
  };

  return {
    async getMany(keys, load, keepValue = () => true) {
      const found = new Map<K, V>();
      const absent = new Set<K>();
      for (const key of keys) {
        // One look-up per key: a kept value may itself be undefined, so only then ask has().
        const value = entries.get(key);
        if (value !== undefined || entries.has(key)) found.set(key, value as V);
        else absent.add(key);
      }
      stats.hits += found.size;
      stats.misses += absent.size;
      if (absent.size === 0) return found;
      const missing = [...absent];
      const loadedIn = generation;
      const loaded = await load(missing);
      for (const key of missing) {
        if (!loaded.has(key)) throw new Error('cache load did not answer every key it was given');
        const value = loaded.get(key) as V;
        found.set(key, value);
        if (keepValue(value)) keep(key, value, loadedIn);
      }
      return found;
    },
    async get(key, load, keepValue = () => true) {
      if (entries.has(key)) {
        stats.hits += 1;
        return entries.get(key) as V;
      }
      stats.misses += 1;
      const loadedIn = generation;
      const value = await load(key);
      if (keepValue(value)) keep(key, value, loadedIn);
      return value;
    },
    peek(key) {
      const value = entries.get(key);
      if (value !== undefined) stats.hits += 1;
      return value;
    },
    invalidate() {
      generation += 1;
      stats.invalidations += 1;
      entries.clear();
      weights.clear();
      totalWeight = 0;
    },
    get size() {
      return entries.size;
    },
    stats,
  };
}
