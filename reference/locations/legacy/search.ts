import { foldText } from './normalize.js';
import type { IndexedLocation } from './registry-index.js';

/**
 * Ranking tiers of LEGACY search (README.md, "Search"): exact id or code, name prefix, word
 * prefix, substring. Candidates arrive in browse order (level weight, folded name, name, id),
 * so each tier stays in that order and the tie-break needs no second sort.
 */
export const MatchTier = { EXACT: 0, PREFIX: 1, WORD_PREFIX: 2, SUBSTRING: 3 } as const;
export type MatchTier = (typeof MatchTier)[keyof typeof MatchTier];

export function tierOf(location: IndexedLocation, foldedQuery: string, rawQuery: string): MatchTier | undefined {
  if (rawQuery === location.id || location.aliases.includes(foldedQuery)) return MatchTier.EXACT;
  if (location.folded.startsWith(foldedQuery)) return MatchTier.PREFIX;
  if (location.spaced.includes(` ${foldedQuery}`)) return MatchTier.WORD_PREFIX;
  if (location.folded.includes(foldedQuery)) return MatchTier.SUBSTRING;
  return undefined;
}

export interface Ranked {
  locations: IndexedLocation[];
  /** More matches exist beyond `limit`. */
  hasMore: boolean;
}

/**
 * Ranks `candidates` (already in browse order) against `query`, keeping at most `limit`.
 * Without a query the browse order is the ranking.
 */
export function rank(candidates: Iterable<IndexedLocation>, query: string | undefined, limit: number): Ranked {
  if (query === undefined) {
    const locations: IndexedLocation[] = [];
    for (const location of candidates) {
      locations.push(location);
      if (locations.length > limit) break;
    }
    return { locations: locations.slice(0, limit), hasMore: locations.length > limit };
  }
  const folded = foldText(query);
  const tiers: IndexedLocation[][] = [[], [], [], []];
  for (const location of candidates) {
    const tier = tierOf(location, folded, query);
    // A tier never needs more than limit + 1 entries: anything after them is not returned.
    if (tier !== undefined && tiers[tier]!.length <= limit) tiers[tier]!.push(location);
  }
  const all = tiers.flat();
  return { locations: all.slice(0, limit), hasMore: all.length > limit };
}
