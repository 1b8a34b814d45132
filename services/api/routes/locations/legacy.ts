import { badRequest, notFound } from '../../../../platform/http/errors.js';
import { foldText } from '../../../../reference/locations/legacy/normalize.js';
import type { IndexedLocation, RegistryIndex } from '../../../../reference/locations/legacy/registry-index.js';
import { rank, rankAll } from '../../../../reference/locations/legacy/search.js';
import type { Level } from '../../../../reference/locations/legacy/source-row.js';
import { aliasNote, CodeInputError, lookupSubdivision, type CodeMatch, type CodeType } from '../../../../reference/locations/legacy/subdivision-code.js';
import { joinBytes, type LocationContext, type LocationQuery } from './catalog-param.js';
import { checkLegacyParams, codeTypeParam, countryParam, idParam, levelsParam, limitParam, text } from './legacy-params.js';
import { currentRegistry } from './legacy-registry.js';
import { pageCacheOf } from './page-cache.js';
import { catalogFields, locationBytes, locationWithChain } from './legacy-render.js';
import { LOCALE_WARNING, single } from './params.js';

/**
 * The LEGACY catalog's three handlers over registry v1 (reference/locations/legacy/README.md).
 * Errors: 400 BAD_REQUEST for parameters LEGACY does not accept or cannot read, 404 NOT_FOUND for
 * ids, codes, cities (and on resolve countries) the registry does not have, 503 CATALOG_NOT_LOADED before
 * the first registry build.
 */
const SEARCH_PARAMS = ['catalog', 'q', 'parent_location_id', 'country', 'subdivision_code', 'subdivision_code_type', 'levels', 'limit', 'locale'];
const SEARCH_FULL_ONLY = ['target_types', 'cursor'];
// locale is reserved on every route, as in FULL: accepted and reported in extra.warnings.
const RESOLVE_PARAMS = ['catalog', 'country', 'subdivision_code', 'subdivision_code_type', 'city', 'limit', 'locale'];
const RESOLVE_FULL_ONLY = ['location_id'];
const LOOKUP_PARAMS = ['catalog', 'locale'];

const COUNTRY_LEVEL: ReadonlySet<Level> = new Set<Level>(['COUNTRY']);

/** `extra.warnings` when `locale` is given, plus any of the route's own. */
function localeWarnings(query: LocationQuery, own: string[] = []): { warnings?: string[] } {
  const warnings = single(query, 'locale') === undefined ? own : [LOCALE_WARNING, ...own];
  return warnings.length === 0 ? {} : { warnings };
}

/**
 * When the best city shares its name with other candidates (two Heraklions in Greece), which one
 * `location` holds is the ranking's choice, not the caller's: say so rather than choose silently.
 */
function sameNameWarnings(city: string, candidates: readonly IndexedLocation[], scope: IndexedLocation): string[] {
  const best = candidates[0]!;
  const namesakes = candidates.filter((candidate) => candidate.folded === best.folded).length;
  if (namesakes < 2) return [];
  return [`city ${JSON.stringify(city)} matches ${namesakes} locations named ${JSON.stringify(best.name)} in ${scope.name}; location is the first of candidates, which lists each with its path`];
}

const codeWarnings = (match: CodeMatch, code: string, country: string | undefined): string[] => {
  const note = aliasNote(match, code, country);
  return note === undefined ? [] : [note];
};

/**
 * `extra.expansion` when search answers more than the one location its scope names: the region a
 * subdivision_code names and its cities (`SELF_AND_CHILDREN`).
 */
function searchExpansion(scope: IndexedLocation | undefined): { expansion?: { location_id: string; includes: 'SELF_AND_CHILDREN' } } {
  return scope === undefined ? {} : { expansion: { location_id: scope.id, includes: 'SELF_AND_CHILDREN' } };
}

/**
 * Each country's entries (by country_code) in browse order, gathered once per registry build, so
 * browsing a country without q walks that country only.
 */
const entriesByCountry = new WeakMap<RegistryIndex, Map<string, IndexedLocation[]>>();
function entriesOfCountry(index: RegistryIndex, country: string): readonly IndexedLocation[] {
  let byCountry = entriesByCountry.get(index);
  if (byCountry === undefined) {
    byCountry = new Map();
    for (const location of index.ordered) {
      const entries = byCountry.get(location.countryCode);
      if (entries) entries.push(location);
      else byCountry.set(location.countryCode, [location]);
    }
    entriesByCountry.set(index, byCountry);
  }
  return byCountry.get(country) ?? [];
}

function searchText(query: LocationQuery, name: string): string | undefined {
  const value = text(query, name);
  if (value !== undefined && foldText(value) === '') throw badRequest(`${name} must contain a letter or a digit`);
  return value;
}

function countryOf(index: RegistryIndex, country: string | undefined): IndexedLocation | undefined {
  if (country === undefined) return undefined;
  const found = index.countryByCode.get(country);
  if (!found) throw notFound(`country ${country} is not in the LEGACY registry`);
  return found;
}

function subdivisionOf(index: RegistryIndex, code: string, type: CodeType, country: string | undefined): CodeMatch {
  let match: CodeMatch | undefined;
  try {
    match = lookupSubdivision(index, code, type, country);
  } catch (error) {
    if (error instanceof CodeInputError) throw badRequest(error.message);
    throw error;
  }
  if (!match) {
    throw notFound(`no LEGACY region has subdivision_code ${JSON.stringify(code)}${country ? ` in country ${country}` : ''}`);
  }
  return match;
}

const COMMA = Buffer.from(',');

/** Location objects separated by commas. */
function list(index: RegistryIndex, locations: readonly IndexedLocation[]): Buffer[] {
  return locations.flatMap((location, i) => (i === 0 ? [locationBytes(index, location)] : [COMMA, locationBytes(index, location)]));
}

export async function search(context: LocationContext, query: LocationQuery): Promise<Buffer> {
  checkLegacyParams(query, SEARCH_PARAMS, SEARCH_FULL_ONLY);
  const q = searchText(query, 'q');
  const parentId = idParam(query, 'parent_location_id');
  const country = countryParam(query);
  const code = text(query, 'subdivision_code');
  const codeType = codeTypeParam(query, code !== undefined);
  const given = levelsParam(query);
  const limit = limitParam(query, 20);
  // q is optional in LEGACY: with nothing to start from, search browses the top-level countries
  // (what levels=COUNTRY gives); with only country, it browses that country's entries.
  const browseAll = q === undefined && parentId === undefined && given === undefined && code === undefined && country === undefined;
  const levels = browseAll ? COUNTRY_LEVEL : given;

  const index = await currentRegistry(context.db);
  // country narrows the results, as in FULL (it is not an id): one the registry lacks narrows them to none.
  let candidates: readonly IndexedLocation[] = index.ordered;
  if (parentId !== undefined) {
    if (!index.byId.has(parentId)) throw notFound(`parent_location_id ${parentId} is not in the LEGACY registry`);
    // Direct children only (the reference's direct-child browsing), levels filtering them: the
    // cascade is country → its regions → a region's cities, a step at a time.
    candidates = index.childrenOf(parentId);
  }
  const subdivision = code !== undefined ? subdivisionOf(index, code, codeType, country) : undefined;
  const scope = subdivision?.location;
  // Only the region and its cities can pass the scope test: rank those instead of the registry.
  if (scope !== undefined && candidates === index.ordered) candidates = [scope, ...index.childrenOf(scope.id)];
  // Browsing a country: only its entries can pass, already in browse order.
  if (q === undefined && country !== undefined && candidates === index.ordered) candidates = entriesOfCountry(index, country);
  const cache = pageCacheOf(index);
  const pageKey = JSON.stringify([q ?? null, parentId ?? null, country ?? null, code ?? null, codeType, given ? [...given].sort() : null, limit, single(query, 'locale') !== undefined]);
  const held = cache.get(pageKey);
  if (held !== undefined) return held;
  const keep = (location: IndexedLocation) =>
    (country === undefined || location.countryCode === country) &&
    (levels === undefined || levels.has(location.level)) &&
    (scope === undefined || location === scope || location.parentId === scope.id);
  const ranked = q !== undefined && candidates === index.ordered
    ? rankAll(index, q, limit, keep, { ...(country !== undefined && { country }), ...(levels !== undefined && { levels }) })
    : rank(candidates, q, limit, keep);
  const extra = {
    pagination: { limit, returned: ranked.locations.length, has_more: ranked.hasMore },
    ...(subdivision ? { subdivision_code_type: subdivision.matchedAs } : {}),
    ...searchExpansion(scope),
    ...localeWarnings(query, subdivision ? codeWarnings(subdivision, code!, country) : []),
  };
  return cache.set(pageKey, joinBytes([
    `{"code":"SUCCESS","message":"","data":{${catalogFields(index)},"locations":[`,
    ...list(index, ranked.locations),
    `]},"extra":${JSON.stringify(extra)}}`,
  ]));
}

export async function resolve(context: LocationContext, query: LocationQuery): Promise<Buffer> {
  checkLegacyParams(query, RESOLVE_PARAMS, RESOLVE_FULL_ONLY);
  const country = countryParam(query);
  const code = text(query, 'subdivision_code');
  const codeType = codeTypeParam(query, code !== undefined);
  const city = searchText(query, 'city');
  const limit = limitParam(query, 10);
  if (code === undefined && country === undefined) {
    throw badRequest(city !== undefined ? 'city needs country or subdivision_code to search under' : 'subdivision_code or country is required');
  }

  const index = await currentRegistry(context.db);
  const countryLocation = countryOf(index, country);
  const subdivision = code !== undefined ? subdivisionOf(index, code, codeType, country) : undefined;
  const scope = subdivision?.location ?? countryLocation!;
  let candidates: IndexedLocation[] = [scope];
  let hasMore = false;
  if (city !== undefined) {
    const cityLevel: Level = 'CITY';
    // city is a name: a canonical name holds the region and country, which every candidate shares.
    const ranked = rank(index.descendantsOf(scope.id).filter((location) => location.level === cityLevel), city, limit, () => true, false);
    if (ranked.locations.length === 0) throw notFound(`no LEGACY city matches ${JSON.stringify(city)} in ${scope.name}`);
    candidates = ranked.locations;
    hasMore = ranked.hasMore;
  }
  const best = candidates[0]!;
  const extra = {
    ...(subdivision ? { subdivision_code_type: subdivision.matchedAs } : {}),
    ...(city !== undefined ? { pagination: { limit, returned: candidates.length, has_more: hasMore } } : {}),
    ...localeWarnings(query, [...(subdivision ? codeWarnings(subdivision, code!, country) : []), ...(city !== undefined ? sameNameWarnings(city, candidates, scope) : [])]),
  };
  return joinBytes([
    `{"code":"SUCCESS","message":"","data":{${catalogFields(index)},`,
    ...locationWithChain(index, best),
    ',"candidates":[',
    ...list(index, candidates),
    `]},"extra":${JSON.stringify(extra)}}`,
  ]);
}

export async function lookup(context: LocationContext, id: string, query: LocationQuery): Promise<Buffer> {
  checkLegacyParams(query, LOOKUP_PARAMS, []);
  const locationId = idParam({ location_id: id }, 'location_id')!;
  const index = await currentRegistry(context.db);
  const location = index.byId.get(locationId);
  if (!location) throw notFound(`location ${locationId} is not in the LEGACY registry`);
  return joinBytes([
    `{"code":"SUCCESS","message":"","data":{${catalogFields(index)},`,
    ...locationWithChain(index, location),
    `},"extra":${JSON.stringify(localeWarnings(query))}}`,
  ]);
}
