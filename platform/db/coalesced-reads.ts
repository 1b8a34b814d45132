/**
 * Coalesces concurrent reads by key into one query: keys asked for while a load is in flight (or
 * in the same turn of the event loop) are loaded together by the next call of `loadMany`. Nothing
 * is kept afterwards: this saves round trips under concurrency, it is not a cache, so every answer
 * is as fresh as a read started when it was asked for.
 */
export interface CoalescedReads<K, V> {
  get(key: K): Promise<V | undefined>;
}

/** Most keys one load reads; more wait for the next load. */
const MAX_KEYS_PER_LOAD = 500;

export function coalescedReads<K, V>(loadMany: (keys: K[]) => Promise<Map<K, V>>): CoalescedReads<K, V> {
  const pending = new Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
  let loading = false;
  let scheduled = false;

  const run = async () => {
    scheduled = false;
    if (loading || pending.size === 0) return;
    loading = true;
    const keys = [...pending.keys()].slice(0, MAX_KEYS_PER_LOAD);
    const waiting = keys.map((key) => [key, pending.get(key)!] as const);
    for (const key of keys) pending.delete(key);
    try {
      const found = await loadMany(keys);
      for (const [key, callers] of waiting) for (const caller of callers) caller.resolve(found.get(key));
    } catch (error) {
      for (const [, callers] of waiting) for (const caller of callers) caller.reject(error);
    } finally {
      loading = false;
      if (pending.size > 0) schedule();
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void run());
  };

  return {
    get(key) {
      return new Promise<V | undefined>((resolve, reject) => {
        const callers = pending.get(key);
        if (callers) callers.push({ resolve, reject });
        else pending.set(key, [{ resolve, reject }]);
        if (!loading) schedule();
      });
    },
  };
}
