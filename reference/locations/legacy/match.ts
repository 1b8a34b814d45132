import { allowedEdits, editDistance } from './edit-distance.js';
import { namesAgree } from './iso-agreement.js';
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
 * A pair is a candidate only when the region also agrees with the code's current names (ISO's
 * name, reviewed names: iso-agreement.ts), so a stale CLDR name can find no code; a current name
 * that two candidate codes share tells neither apart and counts for none.
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
        if (editDistance(left, right) <= allowedEdits(left, right)) return true;
      }
    }
  }
  return false;
}

/** The names a region is known by. */
export function regionNames(region: RegionForMatch): string[] {
  // The canonical name's first segment sometimes carries the fuller form ("Province of Alicante").
  const first = region.canonicalName.split(',')[0] ?? '';
  return first && foldText(first) !== foldText(region.name) ? [region.name, first] : [region.name];
}

interface Pool {
  regions: Set<RegionForMatch>;
  subdivisions: Set<Subdivision>;
  countryWords: ReadonlySet<string>;
  /** Whether the region agrees with the code's current names; a pair that does not is never taken. */
  agrees: (region: RegionForMatch, subdivision: Subdivision) => boolean;
}

/** One pass of one tier: the forced, unclaimed pairs. */
function forcedPairs(pool: Pool, method: MatchMethod): [RegionForMatch, Subdivision][] {
  const subKeys = [...pool.subdivisions].map((sub) => [sub, keys(sub.names, method, pool.countryWords)] as const);
  const byRegion = new Map<RegionForMatch, Subdivision[]>();
  const bySub = new Map<Subdivision, RegionForMatch[]>();
  for (const region of pool.regions) {
    const regionKeys = keys(regionNames(region), method, pool.countryWords);
    for (const [sub, sKeys] of subKeys) {
      if (!keysMatch(method, regionKeys, sKeys) || !pool.agrees(region, sub)) continue;
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
  const owners = new Map<string, Set<Subdivision>>();
  for (const sub of candidates) {
    for (const name of sub.currentNames) owners.set(foldText(name), (owners.get(foldText(name)) ?? new Set()).add(sub));
  }
  const telling = new Map(candidates.map((sub) => [sub, sub.currentNames.filter((name) => owners.get(foldText(name))?.size === 1)]));
  // Each tier pass asks again; the answer for a pair never changes.
  const agreed = new Map<string, boolean>();
  const agrees = (region: RegionForMatch, sub: Subdivision) => {
    const key = `${region.id} ${sub.iso}`;
    let result = agreed.get(key);
    if (result === undefined) agreed.set(key, (result = namesAgree(regionNames(region), telling.get(sub) ?? [], countryWords)));
    return result;
  };
  return matchPool({ regions: new Set(regions), subdivisions: new Set(candidates), countryWords, agrees });
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
