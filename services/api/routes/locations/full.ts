import { badRequest, notFound } from '../../../../platform/http/errors.js';
import { constraintsKey, CursorError, decodeCursor, encodeCursor, type CursorPosition } from '../../../../reference/locations/full/cursor.js';
import type { FullIndex } from '../../../../reference/locations/full/memory-index.js';
import type { CurrentRelease } from '../../../../reference/locations/full/queries.js';
import { fullReaderFor } from '../../../../reference/locations/full/reader.js';
import { locationBytes, locationIdsJson, pathBytes } from '../../../../reference/locations/full/render.js';
import type { SearchConstraints } from '../../../../reference/locations/full/search.js';
import { normalizeSearchText } from '../../../../reference/locations/full/search-text.js';
import { catalogNotLoaded, catalogUnavailable } from './catalog-not-loaded.js';
import { joinBytes, type LocationContext, type LocationQuery } from './catalog-param.js';
import { pageCacheOf } from './page-cache.js';
import {
  assertAllowedParameters,
  COUNTRY_PATTERN,
  integerParam,
  listParam,
  LOCATION_ID_PATTERN,
  matching,
  nonEmpty,
  LOCALE_WARNING,
  single,
} from './params.js';

/** The FULL catalog's three handlers: 400 for bad or LEGACY-only input, 404 for unknown ids, 503 before a load. */
const legacyOnly = 'is a LEGACY-only parameter; the FULL catalog does not accept it';
const SEARCH_PARAMETERS = ['catalog', 'q', 'parent_location_id', 'country', 'target_types', 'limit', 'cursor', 'locale'];
const SEARCH_LEGACY_ONLY = { subdivision_code: legacyOnly, subdivision_code_type: legacyOnly, levels: legacyOnly };
const RESOLVE_PARAMETERS = ['catalog', 'location_id', 'locale'];
const RESOLVE_LEGACY_ONLY = { country: legacyOnly, subdivision_code: legacyOnly, subdivision_code_type: legacyOnly, city: legacyOnly, limit: legacyOnly };
const LOOKUP_PARAMETERS = ['catalog', 'locale'];

async function catalog(context: LocationContext, options?: { fresh?: boolean }): Promise<FullIndex> {
  const current = await fullReaderFor(context.db).current(options).catch((error: unknown) => Promise.reject(catalogUnavailable(error)));
  if (!current) throw catalogNotLoaded('FULL');
  return current;
}

/** The catalog-level fields of `data`, as JSON members (no braces). */
const catalogFields = (current: CurrentRelease) =>
  `"catalog":"FULL","catalog_version":"v1","source_file_date":${JSON.stringify(current.sourceFileDate)}`;

const LOCALE_EXTRA = JSON.stringify({ warnings: [LOCALE_WARNING] });

/** `locale` is reserved: accepted, and said so. */
function localeExtra(query: LocationQuery): string {
  return single(query, 'locale') === undefined ? '{}' : LOCALE_EXTRA;
}

function locationId(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw badRequest(`${name} is required`);
  if (!LOCATION_ID_PATTERN.test(value)) throw badRequest(`${name} must be a numeric location id, got ${JSON.stringify(value)}`);
  return value;
}

function searchConstraints(query: LocationQuery): SearchConstraints {
  const rawQ = nonEmpty(query, 'q');
  const parentId = matching(query, 'parent_location_id', LOCATION_ID_PATTERN, 'a numeric location id') ?? null;
  // Compatibility forms first (full-width "ＢＡＶ" is "BAV"), as LEGACY folds q; the catalog's names are folded without it.
  const q = rawQ === undefined ? null : normalizeSearchText(rawQ.normalize('NFKC'));
  if (q === '') throw badRequest('q must contain a letter or a digit');
  if (q === null && parentId === null) throw badRequest('q is required in FULL search unless parent_location_id is given');
  const targetTypes = listParam(query, 'target_types');
  return {
    q,
    country: matching(query, 'country', COUNTRY_PATTERN, 'an ISO 3166-1 alpha-2 code in upper case') ?? null,
    targetTypes: targetTypes === undefined ? null : targetTypes.sort(),
    parentId,
  };
}

function cursorPosition(current: CurrentRelease, key: string, cursor: string | undefined): CursorPosition | undefined {
  if (cursor === undefined) return undefined;
  try {
    return decodeCursor(current.cursorSecret, current.releaseId, key, cursor);
  } catch (error) {
    if (!(error instanceof CursorError)) throw error;
    const messages = {
      malformed: 'cursor is not valid; use data.next_cursor exactly as returned',
      'other-release': 'cursor belongs to an earlier catalog release; start the search again without cursor',
      'other-constraints': 'cursor was issued for other search constraints (q, country, target_types, parent_location_id); reuse it only with the same ones',
    } as const;
    throw badRequest(messages[error.problem]);
  }
}

export async function search(context: LocationContext, query: LocationQuery): Promise<Buffer> {
  assertAllowedParameters(query, SEARCH_PARAMETERS, SEARCH_LEGACY_ONLY);
  const given = searchConstraints(query);
  const limit = integerParam(query, 'limit', { min: 1, max: 50, fallback: 20 });
  const cursor = nonEmpty(query, 'cursor', 'leave it out for the first page');
  const extra = localeExtra(query);
  let index = await catalog(context);
  // Target types as the release spells them, whatever the letter case given (`city` is `City`).
  const constraints = { ...given, targetTypes: given.targetTypes && [...new Set(given.targetTypes.map((type) => index.releaseTargetType(type)))].sort() };
  const key = constraintsKey({ ...constraints });
  let after: CursorPosition | undefined;
  try {
    after = cursorPosition(index.release, key, cursor);
  } catch {
    // Maybe a cursor of a release loaded since this process last looked: look again before refusing it.
    index = await catalog(context, { fresh: true });
    after = cursorPosition(index.release, key, cursor);
  }
  // Browsing under an id the catalog does not have is an unknown id, as in LEGACY: 404, not an empty page.
  if (constraints.parentId !== null && activeRow(index, constraints.parentId) === undefined) {
    throw notFound(`parent_location_id ${constraints.parentId} is not an active location of the FULL catalog`);
  }
  const cache = pageCacheOf(index);
  const pageKey = JSON.stringify([key, limit, cursor ?? null, extra]);
  return cache.get(pageKey) ?? cache.set(pageKey, searchPage(index, constraints, key, limit, after, extra));
}

function searchPage(index: FullIndex, constraints: SearchConstraints, key: string, limit: number, after: CursorPosition | undefined, extra: string): Buffer {
  const matches = index.search(constraints, limit + 1, after);
  const page = matches.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = matches.length > limit && last
    ? encodeCursor(index.release.cursorSecret, index.release.releaseId, key, index.positionOf(last.row, last.tier))
    : undefined;
  const pagination = `"pagination":{"limit":${limit},"returned":${page.length},"has_more":${nextCursor !== undefined}}`;
  const parts: (string | Buffer)[] = [`{"code":"SUCCESS","message":"","data":{${catalogFields(index.release)},"locations":[`];
  page.forEach((match, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(locationBytes(index, match.row));
  });
  parts.push(`]${nextCursor === undefined ? '' : `,"next_cursor":${JSON.stringify(nextCursor)}`}},"extra":`);
  parts.push(extra === '{}' ? `{${pagination}}}` : `${extra.slice(0, -1)},${pagination}}}`);
  return joinBytes(parts);
}

const COMMA = Buffer.from(',');

/** `location`, `path` and `location_ids` of one row, between the catalog fields and what follows. */
function chainParts(index: FullIndex, row: number, after: string): (string | Buffer)[] {
  return [
    `{"code":"SUCCESS","message":"","data":{${catalogFields(index.release)},"location":`,
    locationBytes(index, row),
    ',"path":',
    pathBytes(index, row),
    `,"location_ids":${locationIdsJson(index, row)}${after}`,
  ];
}

/**
 * Row of an id exactly as the catalog writes it. The index compares ids as numbers, so a
 * zero-padded form ("02840") would otherwise find 2840; it is not an id of the catalog.
 */
function activeRow(index: FullIndex, id: string): number | undefined {
  return id.length > 1 && id.startsWith('0') ? undefined : index.rowOf(id);
}

function found(index: FullIndex, id: string, missing: string): number {
  const row = activeRow(index, id);
  if (row === undefined) throw notFound(missing);
  return row;
}

export async function resolve(context: LocationContext, query: LocationQuery): Promise<Buffer> {
  assertAllowedParameters(query, RESOLVE_PARAMETERS, RESOLVE_LEGACY_ONLY);
  const id = locationId(single(query, 'location_id'), 'location_id');
  const extra = localeExtra(query);
  const index = await catalog(context);
  const row = found(index, id, `location_id ${id} is not an active location of the FULL catalog`);
  return joinBytes(chainParts(index, row, `,"candidates":[]},"extra":${extra}}`));
}

export async function lookup(context: LocationContext, id: string, query: LocationQuery): Promise<Buffer> {
  assertAllowedParameters(query, LOOKUP_PARAMETERS);
  locationId(id, 'location_id');
  const extra = localeExtra(query);
  const index = await catalog(context);
  const row = found(index, id, `location ${id} is not an active location of the FULL catalog`);
  return joinBytes(chainParts(index, row, `},"extra":${extra}}`));
}
