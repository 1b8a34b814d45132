import { foldText, nameVariants, stripTypeWords } from './normalize.js';
import type { Subdivision } from './subdivisions.js';

/**
 * Matches provider regions to subdivisions of the same country by name (README.md, "Matching").
 * Tiers, strictest first:
 *   EXACT     folded names equal (case, accents, punctuation ignored)
 *   STRIPPED  equal once type, filler and country-name words are removed ("State of Sao Paulo")
 *   COMPACT   equal once spaces are removed too ("Northrhine Westphalia")
 *   TOKENS    every word of the shorter stripped name is a word of the longer one
 *   PREFIX    same number of words, each the start of the other's ("Lower Silesian" ~ "Lower Silesia")
 *   FUZZY     stripped names within a small edit distance ("Menofia" ~ "Monufia")
 * Within a tier a pair is taken when it is forced (the region has only that candidate, or the
 * subdivision has only that region) and nothing else claims either side; the tier repeats until
 * it takes nothing more. An ambiguous name therefore never produces a code.
 * Nested units (Irish counties, Indonesian provinces) are candidates only where the provider
 * has more regions than the country has first-level subdivisions; taking one closes its
 * first-level parent, and taking a first-level unit closes its nested units.
 */
export type MatchMethod = 'EXACT' | 'STRIPPED' | 'COMPACT' | 'TOKENS' | 'PREFIX' | 'FUZZY';
const TIERS: MatchMethod[] = ['EXACT', 'STRIPPED', 'COMPACT', 'TOKENS', 'PREFIX', 'FUZZY'];
const MIN_PREFIX = 4;

export interface RegionForMatch {
  id: string;
  name: string;
  canonicalName: string;
  countryCode: string;
}

export interface RegionMatch {
  regionId: string;
  subdivision: Subdivision;
  method: MatchMethod;
}

function keys(names: string[], method: MatchMethod, countryWords: ReadonlySet<string>): string[] {
  const folded = names.flatMap(nameVariants);
  if (method === 'EXACT') return folded;
  const stripped = folded.map((name) => stripTypeWords(name, countryWords));
  return method === 'COMPACT' ? stripped.map((key) => key.replace(/ /g, '')) : stripped;
}

/** Optimal string alignment distance, capped: enough to tell 0, 1, 2 and "more". */
export function editDistance(a: string, b: string, cap = 3): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) { row.push(j); continue; }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((rows[i - 1]?.[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (rows[i - 1]?.[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return Math.min(rows[a.length]?.[b.length] ?? cap + 1, cap + 1);
}

function wordsFit(short: string[], long: string[], prefix: boolean): boolean {
  const free = [...long];
  return short.every((word) => {
    const at = free.findIndex((other) => other === word ||
      (prefix && Math.min(word.length, other.length) >= MIN_PREFIX && (other.startsWith(word) || word.startsWith(other))));
    if (at < 0) return false;
    free.splice(at, 1);
    return true;
  });
}

function keysMatch(method: MatchMethod, a: string[], b: string[]): boolean {
  if (method === 'EXACT' || method === 'STRIPPED' || method === 'COMPACT') return a.some((key) => b.includes(key));
  for (const left of a) {
    for (const right of b) {
      const [x, y] = [left.split(' '), right.split(' ')];
      if (method === 'TOKENS' && wordsFit(x.length <= y.length ? x : y, x.length <= y.length ? y : x, false)) return true;
      if (method === 'PREFIX' && x.length === y.length && wordsFit(x, y, true)) return true;
      if (method === 'FUZZY') {
        const allowed = Math.min(left.length, right.length) < 6 ? 1 : 2;
        if (editDistance(left, right) <= allowed) return true;
      }
    }
  }
  return false;
}

function regionNames(region: RegionForMatch): string[] {
  // The canonical name's first segment sometimes carries the fuller form ("Province of Alicante").
  const first = region.canonicalName.split(',')[0] ?? '';
  return first && foldText(first) !== foldText(region.name) ? [region.name, first] : [region.name];
}

interface Pool {
  regions: Set<RegionForMatch>;
  subdivisions: Set<Subdivision>;
  countryWords: ReadonlySet<string>;
}

/** One pass of one tier: the forced, unclaimed pairs. */
function forcedPairs(pool: Pool, method: MatchMethod): [RegionForMatch, Subdivision][] {
  const subKeys = [...pool.subdivisions].map((sub) => [sub, keys(sub.names, method, pool.countryWords)] as const);
  const byRegion = new Map<RegionForMatch, Subdivision[]>();
  const bySub = new Map<Subdivision, RegionForMatch[]>();
  for (const region of pool.regions) {
    const regionKeys = keys(regionNames(region), method, pool.countryWords);
    for (const [sub, sKeys] of subKeys) {
      if (!keysMatch(method, regionKeys, sKeys)) continue;
      byRegion.set(region, [...(byRegion.get(region) ?? []), sub]);
      bySub.set(sub, [...(bySub.get(sub) ?? []), region]);
    }
  }
  const forced: [RegionForMatch, Subdivision][] = [];
  for (const [region, subs] of byRegion) {
    for (const sub of subs) {
      if (subs.length === 1 || bySub.get(sub)?.length === 1) forced.push([region, sub]);
    }
  }
  const claims = new Map<unknown, number>();
  for (const [region, sub] of forced) for (const side of [region, sub]) claims.set(side, (claims.get(side) ?? 0) + 1);
  return forced.filter(([region, sub]) => claims.get(region) === 1 && claims.get(sub) === 1);
}

/** Takes forced pairs tier by tier; a taken unit also closes its parent or its nested units. */
function matchPool(pool: Pool): RegionMatch[] {
  const matches: RegionMatch[] = [];
  for (const method of TIERS) {
    for (let pairs = forcedPairs(pool, method); pairs.length > 0; pairs = forcedPairs(pool, method)) {
      for (const [region, subdivision] of pairs) {
        if (!pool.regions.has(region) || !pool.subdivisions.has(subdivision)) continue;
        matches.push({ regionId: region.id, subdivision, method });
        pool.regions.delete(region);
        for (const sub of pool.subdivisions) {
          if (sub === subdivision || sub.iso === subdivision.parentIso || sub.parentIso === subdivision.iso) {
            pool.subdivisions.delete(sub);
          }
        }
      }
    }
  }
  return matches;
}

/**
 * Pure: the regions and subdivisions of ONE country in, one-to-one matches out. `countryName` is
 * the registry name of the country, whose words do not identify a region ("Capital Region of Denmark").
 */
export function matchCountry(regions: RegionForMatch[], subdivisions: Subdivision[], countryName = ''): RegionMatch[] {
  const countryWords = new Set(foldText(countryName).split(' ').filter(Boolean));
  const firstLevelCount = subdivisions.filter((sub) => sub.depth === 1).length;
  const withNested = regions.length > firstLevelCount;
  const candidates = subdivisions.filter((sub) => sub.names.length > 0 && (withNested || sub.depth === 1));
  return matchPool({ regions: new Set(regions), subdivisions: new Set(candidates), countryWords });
}

/** Matches every country's regions; regions of countries the sources do not list stay unmatched. */
export function matchRegions(
  regions: RegionForMatch[],
  byCountry: ReadonlyMap<string, Subdivision[]>,
  countryNames: ReadonlyMap<string, string> = new Map(),
): RegionMatch[] {
  const grouped = new Map<string, RegionForMatch[]>();
  for (const region of regions) grouped.set(region.countryCode, [...(grouped.get(region.countryCode) ?? []), region]);
  return [...grouped].flatMap(([country, list]) => matchCountry(list, byCountry.get(country) ?? [], countryNames.get(country)));
}
