import { foldText } from './normalize.js';
import { compareLocations, type IndexedLocation, type RegistryIndex } from './registry-index.js';
import { LEVEL_WEIGHT, LEVELS, type Level } from './source-row.js';

/**
 * Ranking tiers of LEGACY search (README.md, "Search"): exact id or code, name prefix, word
 * prefix, substring, then the entry's country code (as FULL matches it: every entry of that
 * country, after those whose names hold `q`); word prefix and substring look at the name and the
 * canonical name, each on its own. Candidates arrive in browse order (level weight, folded name,
 * name, id), so each tier stays in that order and the tie-break needs no second sort.
 */
const MatchTier = { EXACT: 0, PREFIX: 1, WORD_PREFIX: 2, SUBSTRING: 3, COUNTRY: 4 } as const;
export type MatchTier = (typeof MatchTier)[keyof typeof MatchTier];

/**
 * The id is matched by the folded query too, as FULL matches it (full-width "２２５０" is 2250):
 * ids are digits, which folding keeps. `canonical: false` matches names only (resolve's `city`).
 */
function tierOf(location: IndexedLocation, foldedQuery: string, canonical = true): MatchTier | undefined {
  if (foldedQuery === location.id || (location.aliases.length > 0 && location.aliases.includes(foldedQuery))) return MatchTier.EXACT;
  // Every other tier is a substring match: one search rules most locations out.
  const text = canonical ? location.text : location.spaced;
  if (!text.includes(foldedQuery)) return canonical && countryCodeOf(foldedQuery) === location.countryCode ? MatchTier.COUNTRY : undefined;
  if (location.folded.startsWith(foldedQuery)) return MatchTier.PREFIX;
  if (text.includes(` ${foldedQuery}`)) return MatchTier.WORD_PREFIX;
  return MatchTier.SUBSTRING;
}

/** The country code a folded query may be (two letters), or undefined. */
const countryCodeOf = (foldedQuery: string) => (/^[a-z]{2}$/.test(foldedQuery) ? foldedQuery.toUpperCase() : undefined);

export interface Ranked {
  locations: IndexedLocation[];
  /** More matches exist beyond `limit`. */
  hasMore: boolean;
}

/**
 * Ranks the `candidates` that `keep` accepts (already in browse order) against `query`, keeping
 * at most `limit`. Without a query the browse order is the ranking. `canonical: false` matches
 * names only.
 */
export function rank(
  candidates: readonly IndexedLocation[],
  query: string | undefined,
  limit: number,
  keep: (location: IndexedLocation) => boolean = () => true,
  canonical = true,
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
  const tiers: IndexedLocation[][] = [[], [], [], [], []];
  for (const location of candidates) {
    const tier = tierOf(location, folded, canonical);
    // A tier never needs more than limit + 1 entries: anything after them is not returned.
    if (tier !== undefined && tiers[tier]!.length <= limit && keep(location)) tiers[tier]!.push(location);
  }
  const all = tiers.flat();
  return { locations: all.slice(0, limit), hasMore: all.length > limit };
}

/** Narrowing that rankAll() can use to skip rows instead of testing them (keep still applies). */
export interface Narrowing {
  country?: string;
  levels?: ReadonlySet<Level>;
}

/**
 * rank() over the whole registry through its text index (registry-index.ts): name prefixes by
 * binary search per level, word prefixes from the word lists or a scan, substrings by one scan of
 * the joined names, each in browse order, stopping once limit + 1 matches are known.
 */
export function rankAll(
  index: RegistryIndex,
  query: string,
  limit: number,
  keep: (location: IndexedLocation) => boolean = () => true,
  narrowing: Narrowing = {},
): Ranked {
  const want = limit + 1;
  const folded = foldText(query);
  const exact = [...new Set([...(index.byAlias.get(folded) ?? []), ...[index.byId.get(folded)].filter((hit) => hit !== undefined)])]
    .sort(compareLocations)
    .filter(keep);
  const found: IndexedLocation[] = exact.slice(0, want);
  const full = () => found.length >= want;
  const exactSet = new Set(exact);
  const { text, ordered } = index;
  let scope = text.global;
  if (narrowing.country !== undefined) {
    const group = index.countryGroups.get(narrowing.country);
    if (group === undefined) return { locations: found.slice(0, limit), hasMore: found.length > limit };
    scope = text.groupScope(group);
  }
  const segments = LEVELS.filter((level) => narrowing.levels === undefined || narrowing.levels.has(level)).map((level) => LEVEL_WEIGHT[level]);
  const allowedLevels = new Set(segments);
  /** Inside the narrowing (word lists hold rows of every level and country). */
  const allowed = (location: IndexedLocation) =>
    allowedLevels.has(LEVEL_WEIGHT[location.level]) && (narrowing.country === undefined || location.countryCode === narrowing.country);
  const take = (location: IndexedLocation) => {
    if (!exactSet.has(location) && keep(location)) found.push(location);
    return !full();
  };
  if (folded === '' || full()) return { locations: found.slice(0, limit), hasMore: found.length > limit };

  // PREFIX
  for (const segment of segments) {
    const [from, to] = text.segmentPositions(scope, segment);
    const [lo, , hi] = text.prefixPositions(scope, from, to, folded);
    for (let k = lo; k < hi && take(ordered[text.rowAt(scope, k)]!); k++);
    if (full()) break;
  }
  /** Takes the scope's rows whose text holds `pattern` and that `accept` lets through, segment by segment, until full. */
  const scanSegments = (pattern: string, accept: (location: IndexedLocation) => boolean) => {
    let going = true;
    for (const segment of segments) {
      const [from, to] = text.segmentPositions(scope, segment);
      text.scan(scope, pattern, from, to, (k) => {
        const location = ordered[text.rowAt(scope, k)]!;
        going = accept(location) ? take(location) : true;
        return going;
      });
      if (!going) return;
    }
  };
  const spaced = ` ${folded}`;
  // WORD_PREFIX: a later word of the name, or a word of the canonical name, starts with q.
  if (!full()) {
    const tokens = folded.split(' ');
    const words = tokens.length === 1 ? text.wordsWithPrefix(folded) : text.exactWord(tokens[0]!);
    const wordPrefix = (location: IndexedLocation) => !location.folded.startsWith(folded) && location.text.includes(spaced);
    const listed = text.rowsOfWords(scope, words);
    if (listed !== null) {
      for (const row of listed) {
        const location = ordered[row]!;
        if (!allowed(location)) continue;
        if (wordPrefix(location) && !take(location)) break;
      }
    } else {
      scanSegments(spaced, wordPrefix);
    }
  }
  // SUBSTRING: q elsewhere in the name or the canonical name.
  if (!full()) {
    const inside = (location: IndexedLocation) => !location.text.includes(spaced);
    const candidates = text.rowsWithRarePair(scope, folded);
    if (candidates !== null) {
      for (const row of candidates) {
        const location = ordered[row]!;
        if (!allowed(location) || !location.text.includes(folded)) continue;
        if (inside(location) && !take(location)) break;
      }
    } else {
      scanSegments(folded, inside);
    }
  }
  // COUNTRY: the entries of the country whose code q is, but for those taken above (their names hold q).
  const code = countryCodeOf(folded);
  const group = code === undefined || (narrowing.country !== undefined && narrowing.country !== code) ? undefined : index.countryGroups.get(code);
  if (!full() && group !== undefined) {
    const country = text.groupScope(group);
    for (const segment of segments) {
      const [from, to] = text.segmentPositions(country, segment);
      for (let k = from; k < to && !full(); k++) {
        const location = ordered[text.rowAt(country, k)]!;
        if (!location.text.includes(folded)) take(location);
      }
      if (full()) break;
    }
  }
  return { locations: found.slice(0, limit), hasMore: found.length > limit };
}
