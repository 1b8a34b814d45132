import { invalidatedCache } from '../../../../platform/cache/invalidated-cache.js';
import type { Sql } from '../../../../platform/db/db.js';
import type { Watermarks } from '../../../../platform/projection/watermarks.js';
import { findServedInstances } from '../../../../projections/serves/queries.js';
import { cardValues, type CardValues } from './instances-answer.js';
import type { ServedCard } from './instances-cards.js';

/** A kept card with its own parts of the answer, worked out once. */
export interface KeptCard extends ServedCard {
  values: CardValues;
}

/**
 * Served cards by offer_instance_id, kept in process: a serve is written once and never changes,
 * so a card read once answers every later lookup of its id without Postgres. Unknown ids are
 * never kept (their serve may be applied a moment later). Everything is dropped when the process
 * may have stopped hearing the projectors (a notification gap: the listening session dropped,
 * Postgres restarted or was replaced), so a read model that cannot be read is still a 503, not a
 * cached success. The oldest cards go first past `maxEntries`; 0 keeps none.
 */
export interface ServedCardCache {
  /** The cards of `ids` (canonical lowercase UUIDs); null for an unknown id. Throws what the read model throws. */
  cards(sql: Sql, ids: readonly string[]): Promise<Map<string, KeptCard | null>>;
  readonly size: number;
  close(): void;
}

export function openServedCardCache(watermarks: Pick<Watermarks, 'onApplied'>, options: { maxEntries: number }): ServedCardCache {
  const cache = invalidatedCache<string, KeptCard | null>({ maxEntries: options.maxEntries });
  // Ids, offers and placements repeat across millions of cards: one string each.
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
      shared.clear();
    }
  });

  async function load(sql: Sql, missing: string[]): Promise<Map<string, KeptCard | null>> {
    const found = new Map<string, KeptCard | null>(missing.map((id) => [id, null]));
    for (const row of await findServedInstances(sql, missing)) {
      const card: ServedCard = {
        offer_instance_id: row.offer_instance_id,
        application_id: intern(row.application_id),
        placement_id: row.placement_id === null ? null : intern(row.placement_id),
        offer_id: intern(row.offer_id),
        served_at: row.served_at,
        environment: row.environment,
        link_url: row.link_url,
        destination_url: row.destination_url === null ? null : intern(row.destination_url),
      };
      found.set(row.offer_instance_id, { ...card, values: cardValues(card) });
    }
    return found;
  }

  return {
    cards: (sql, ids) => cache.getMany(ids, (missing) => load(sql, missing), (card) => card !== null),
    get size() {
      return cache.size;
    },
    close: unsubscribe,
  };
}
