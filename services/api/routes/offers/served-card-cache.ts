import { invalidatedCache } from '../../../../platform/cache/invalidated-cache.js';
import type { Sql } from '../../../../platform/db/db.js';
import type { Watermarks } from '../../../../platform/projection/watermarks.js';
import { findServedInstances } from '../../../../projections/serves/queries.js';
import { keptCard, type KeptCard } from './instances-cards.js';

/**
 * Served cards by offer_instance_id, kept in process: a serve is written once and never changes,
 * so a card read once answers every later lookup of its id without Postgres. Unknown ids are
 * never kept (their serve may be applied a moment later). Everything is dropped when the process
 * may have stopped hearing the projectors (a notification gap: the listening session dropped,
 * Postgres restarted or was replaced), so a read model that cannot be read is still a 503, not a
 * cached success. The oldest cards go first past `maxEntries`; 0 keeps none.
 */
export interface ServedCardCache {
  /** The cards of `ids` (canonical lowercase UUIDs) in a new map; null for an unknown id. Throws what the read model throws. */
  cards(sql: Sql, ids: readonly string[]): Promise<Map<string, KeptCard | null>>;
  /** The kept card of `id`, undefined when it is not in process (unknown, or not read yet); nothing is read. */
  cardIfKept(id: string): KeptCard | undefined;
  readonly size: number;
  close(): void;
}

/**
 * The last eight hex digits of a canonical UUID as a number below 2^30. A kept card is found by
 * this number first: a lookup by a string key reads the key strings of the entries it passes
 * (cold memory with hundreds of thousands of cards kept), one by a small integer reads none.
 */
export function shortKeyOf(id: string): number {
  let key = 0;
  for (let index = id.length - 8; index < id.length; index += 1) {
    const code = id.charCodeAt(index);
    key = (key << 4) | ((code <= 57 ? code - 48 : code - 87) & 15);
  }
  return key & 0x3fffffff;
}

export function openServedCardCache(watermarks: Pick<Watermarks, 'onApplied'>, options: { maxEntries: number }): ServedCardCache {
  const cache = invalidatedCache<string, KeptCard | null>({ maxEntries: options.maxEntries });
  /**
   * Kept cards by shortKeyOf: the first card of a number holds it (another one with the same
   * number is still found in `cache`); bounded like the cache, emptied with it.
   */
  const byShortKey = new Map<number, KeptCard>();
  const index = (card: KeptCard) => {
    const key = shortKeyOf(card.offer_instance_id);
    if (byShortKey.has(key)) return;
    if (byShortKey.size >= options.maxEntries) byShortKey.delete(byShortKey.keys().next().value as number);
    byShortKey.set(key, card);
  };
  // Ids, offers, placements and serve times repeat across millions of cards: one string each.
  const shared = new Map<string, string>();
  const intern = (value: string) => {
    const known = shared.get(value);
    if (known !== undefined) return known;
    if (shared.size >= 100_000) shared.clear();
    shared.set(value, value);
    return value;
  };
  const unsubscribe = watermarks.onApplied((position) => {
    if (!position) {
      cache.invalidate();
      byShortKey.clear();
      shared.clear();
    }
  });

  async function load(sql: Sql, missing: string[]): Promise<Map<string, KeptCard | null>> {
    const found = new Map<string, KeptCard | null>(missing.map((id) => [id, null]));
    for (const row of await findServedInstances(sql, missing)) found.set(row.offer_instance_id, keptCard(row, intern));
    return found;
  }

  return {
    async cards(sql, ids) {
      const cards = await cache.getMany(ids, (missing) => load(sql, missing), (card) => card !== null);
      // Only what the cache kept (a load that overlapped an invalidation is answered, not kept).
      for (const card of cards.values()) if (card && cache.peek(card.offer_instance_id) === card) index(card);
      return cards;
    },
    cardIfKept(id) {
      const card = byShortKey.get(shortKeyOf(id));
      if (card !== undefined && card.offer_instance_id === id) return card;
      return cache.peek(id) ?? undefined;
    },
    get size() {
      return cache.size;
    },
    close: unsubscribe,
  };
}
