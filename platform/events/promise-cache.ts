/**
 * Memoizes an async lookup by key. The promise is cached, not the value, so concurrent callers
 * (a batch decoded in parallel) share one lookup; a failed lookup is forgotten and retried.
 */
export function promiseCache<K, V>(load: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const cache = new Map<K, Promise<V>>();
  return (key) => {
    let value = cache.get(key);
    if (!value) {
      value = load(key);
      value.catch(() => cache.delete(key));
      cache.set(key, value);
    }
    return value;
  };
}
