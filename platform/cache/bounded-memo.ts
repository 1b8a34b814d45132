/**
 * The answer for `key` from `memo`, computed and kept the first time; a memo holding `max` answers
 * starts over. For answers that are pure and cheap to recompute, asked for a few keys many times
 * (a partner's source addresses, a card's destination): a full reset costs less than keeping an
 * exact least-recently-used order on every hit.
 */
export function memoized<K, V>(memo: Map<K, V>, max: number, key: K, compute: (key: K) => V): V {
  let value = memo.get(key);
  if (value === undefined) {
    value = compute(key);
    if (memo.size >= max) memo.clear();
    memo.set(key, value);
  }
  return value;
}
