import { invalidatedCache } from '../../platform/cache/invalidated-cache.js';
import type { Sql } from '../../platform/db/db.js';
import type { Watermarks } from '../../platform/projection/watermarks.js';
import { hashApiKey, MAX_PRESENTED_KEY_LENGTH } from '../../projections/accounts/api-keys.js';
import { findDefaultPlacement, findPlacements, lookupApiKey, type DefaultPlacement, type KeyLookup, type Placement } from '../../projections/accounts/queries.js';
import { findOffers, type StoredOffer } from '../../projections/offers/queries.js';

/**
 * In-process caches of the reads every offer-route request repeats: API key lookups, placements
 * (and the default one, for anonymous and sandbox serves) and stored offers. Each is emptied by
 * every commit of the projection it copies (`accounts` for keys and placements, `offers` for
 * offers), heard through the applied-watermark notifications before anyone waiting for that
 * commit is woken; a notification gap (the listening session dropped or reopened) empties all of
 * them, and nothing read while the session is down is kept (a commit then goes unheard). So a
 * revoked key, a paused offer or a deactivated placement takes effect on the first request after
 * its event is applied, and with Postgres gone nothing is answered from here.
 * Served cards have a cache of their own (routes/offers/served-card-cache.ts).
 */
export interface ReadCaches {
  /** lookupApiKey, remembered by the key's keyed hash (never the clear key); unknown keys are not kept. */
  lookupKey(sql: Sql, secret: string, presented: string): Promise<KeyLookup>;
  /** Placements by id; null for an unknown id. */
  placements(sql: Sql, ids: readonly string[]): Promise<Map<string, Placement | null>>;
  /** The kept placement of `id` (null: known not to exist), undefined when not in process; nothing is read. */
  placementIfKept(id: string): Placement | null | undefined;
  /** Where anonymous Query requests are served; undefined when none is designated. */
  defaultPlacement(sql: Sql): Promise<DefaultPlacement | undefined>;
  /** Stored offers by id; null for an unknown id. */
  offers(sql: Sql, ids: readonly string[]): Promise<Map<string, StoredOffer | null>>;
  /** The kept offer of `id` (null: known not to exist), undefined when not in process; nothing is read. */
  offerIfKept(id: string): StoredOffer | null | undefined;
  stats(): Record<'keys' | 'placements' | 'offers', { hits: number; misses: number; invalidations: number; size: number }>;
  close(): void;
}

/** Entries each cache keeps at most (the oldest go first). */
const MAX_ENTRIES = 50_000;

const withNulls = <V>(ids: readonly string[], found: Map<string, V>) => new Map(ids.map((id) => [id, found.get(id) ?? null]));

export function openReadCaches(watermarks: Pick<Watermarks, 'onApplied' | 'hearing'>, options: { maxEntries?: number } = {}): ReadCaches {
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const keepWhile = () => watermarks.hearing();
  const keys = invalidatedCache<string, KeyLookup>({ maxEntries, keepWhile });
  const placements = invalidatedCache<string, Placement | null>({ maxEntries, keepWhile });
  const offers = invalidatedCache<string, StoredOffer | null>({ maxEntries, keepWhile });
  const defaultPlacement = invalidatedCache<'default', DefaultPlacement | undefined>({ maxEntries: Math.min(1, maxEntries), keepWhile });
  const byProjection: Record<string, { invalidate(): void }[]> = { accounts: [keys, placements, defaultPlacement], offers: [offers] };

  const unsubscribe = watermarks.onApplied((position) => {
    const caches = position ? (byProjection[position.projection] ?? []) : [keys, placements, defaultPlacement, offers];
    for (const cache of caches) cache.invalidate();
  });

  const stats = (cache: typeof keys | typeof placements | typeof offers) => ({ ...cache.stats, size: cache.size });
  return {
    lookupKey(sql, secret, presented) {
      if (presented.length === 0 || presented.length > MAX_PRESENTED_KEY_LENGTH) return lookupApiKey(sql, secret, presented);
      return keys.get(hashApiKey(secret, presented), () => lookupApiKey(sql, secret, presented), (found) => found.kind !== 'unknown');
    },
    placements: (sql, ids) => placements.getMany(ids, async (missing) => withNulls(missing, await findPlacements(sql, missing))),
    defaultPlacement: (sql) => defaultPlacement.get('default', () => findDefaultPlacement(sql)),
    offers: (sql, ids) => offers.getMany(ids, async (missing) => withNulls(missing, await findOffers(sql, missing))),
    placementIfKept: (id) => placements.peek(id),
    offerIfKept: (id) => offers.peek(id),
    stats: () => ({ keys: stats(keys), placements: stats(placements), offers: stats(offers) }),
    close: unsubscribe,
  };
}
