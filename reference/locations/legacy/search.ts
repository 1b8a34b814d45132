import { foldText } from './normalize.js';
import { compareLocations, type IndexedLocation, type RegistryIndex } from './registry-index.js';

/**
 * Ranking tiers of LEGACY search (README.md, "Search"): exact id or code, name prefix, word
 * prefix, substring. Candidates arrive in browse order (level weight, folded name, name, id),
 * so each tier stays in that order and the tie-break needs no second sort.
 */
export const MatchTier = { EXACT: 0, PREFIX: 1, WORD_PREFIX: 2, SUBSTRING: 3 } as const;
export type MatchTier = (typeof MatchTier)[keyof typeof MatchTier];

export function tierOf(location: IndexedLocation, foldedQuery: string, rawQuery: string): MatchTier | undefined {
  if (rawQuery === location.id || (location.aliases.length > 0 && location.aliases.includes(foldedQuery))) return MatchTier.EXACT;
  // Every other tier is a substring match: one search rules most locations out.
  const at = location.folded.indexOf(foldedQuery);
  if (at < 0) return undefined;
  if (at === 0) return MatchTier.PREFIX;
  if (location.spaced.includes(` ${foldedQuery}`)) return MatchTier.WORD_PREFIX;
  return MatchTier.SUBSTRING;
}

export interface Ranked {
  locations: IndexedLocation[];
  /** More matches exist beyond `limit`. */
  hasMore: boolean;
}

/**
 * Ranks the `candidates` that `keep` accepts (already in browse order) against `query`, keeping
 * at most `limit`. Without a query the browse order is the ranking.
 */
export function rank(
  candidates: readonly IndexedLocation[],
  query: string | undefined,
  limit: number,
  keep: (location: IndexedLocation) => boolean = () => true,
): Ranked {
  if (query === undefined) {
    const locations: IndexedLocation[] = [];
    for (const location of candidates) {
      if (!keep(location)) continue;
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
    if (tier !== undefined && tiers[tier]!.length <= limit && keep(location)) tiers[tier]!.push(location);
  }
  const all = tiers.flat();
  return { locations: all.slice(0, limit), hasMore: all.length > limit };
}

/**
 * rank() over the whole registry, by one substring scan of the joined names. Matches arrive in
 * browse order, so the scan stops once exact and name-prefix matches alone fill the page.
 */
export function rankAll(
  index: RegistryIndex,
  query: string,
  limit: number,
  keep: (location: IndexedLocation) => boolean = () => true,
): Ranked {
  const folded = foldText(query);
  const tiers: IndexedLocation[][] = [[], [], [], []];
  const exact = [...new Set([...(index.byAlias.get(folded) ?? []), ...[index.byId.get(query)].filter((hit) => hit !== undefined)])]
    .sort(compareLocations)
    .filter(keep);
  tiers[MatchTier.EXACT] = exact.slice(0, limit + 1);
  const exactSet = new Set(exact);
  const { ordered, starts, haystack } = index;
  for (let at = folded === '' ? -1 : haystack.indexOf(folded); at >= 0; ) {
    const entry = index.entryAt(at);
    const location = ordered[entry]!;
    if (!exactSet.has(location) && keep(location)) {
      const tier = at === starts[entry] ? MatchTier.PREFIX
        : location.spaced.includes(` ${folded}`) ? MatchTier.WORD_PREFIX : MatchTier.SUBSTRING;
      if (tiers[tier]!.length <= limit) tiers[tier]!.push(location);
      if (tiers[MatchTier.EXACT]!.length + tiers[MatchTier.PREFIX]!.length > limit) break;
    }
    at = entry + 1 < starts.length ? haystack.indexOf(folded, starts[entry + 1]) : -1;
  }
  const all = tiers.flat();
  return { locations: all.slice(0, limit), hasMore: all.length > limit };
}
