import { badRequest, notFound, serviceUnavailable } from '../../../../platform/http/errors.js';
import { constraintsKey, CursorError, decodeCursor, encodeCursor, type CursorPosition } from '../../../../reference/locations/full/cursor.js';
import { locationIdsOf, type CurrentRelease } from '../../../../reference/locations/full/queries.js';
import { fullReaderFor } from '../../../../reference/locations/full/reader.js';
import type { SearchConstraints } from '../../../../reference/locations/full/search.js';
import { normalizeSearchText } from '../../../../reference/locations/full/search-text.js';
import type { LocationContext, LocationQuery, LocationResult } from './catalog-param.js';
import {
  assertAllowedParameters,
  COUNTRY_PATTERN,
  integerParam,
  listParam,
  LOCATION_ID_PATTERN,
  matching,
  nonEmpty,
  single,
} from './params.js';

/** The FULL catalog's three handlers: 400 for bad or LEGACY-only input, 404 for unknown ids, 503 before a load. */
const legacyOnly = 'is a LEGACY-only parameter; the FULL catalog does not accept it';
const SEARCH_PARAMETERS = ['catalog', 'q', 'parent_location_id', 'country', 'target_types', 'limit', 'cursor', 'locale'];
const SEARCH_LEGACY_ONLY = { subdivision_code: legacyOnly, subdivision_code_type: legacyOnly, levels: legacyOnly };
const RESOLVE_PARAMETERS = ['catalog', 'location_id', 'locale'];
const RESOLVE_LEGACY_ONLY = { country: legacyOnly, subdivision_code: legacyOnly, subdivision_code_type: legacyOnly, city: legacyOnly, limit: legacyOnly };
const LOOKUP_PARAMETERS = ['catalog', 'locale'];

const CATALOG_NOT_LOADED =
  'The FULL location catalog is not loaded. Start the service with GEO_CATALOG_FILE set to a geotargets-YYYY-MM-DD release ' +
  '(`npm run geo:download` fetches the pinned one), or load it with `npm run geo:load <file>`.';

async function release(context: LocationContext, options?: { fresh?: boolean }): Promise<CurrentRelease> {
  const current = await fullReaderFor(context.db).release(options);
  if (!current) throw serviceUnavailable('CATALOG_NOT_LOADED', CATALOG_NOT_LOADED);
  return current;
}

const catalogFields = (current: CurrentRelease) => ({ catalog: 'FULL', catalog_version: 'v1', source_file_date: current.sourceFileDate });

/** `locale` is reserved: accepted, and said so. */
function localeExtra(query: LocationQuery): Record<string, unknown> {
  return single(query, 'locale') === undefined ? {} : { warnings: ['locale is reserved for future localized names; results use registry names'] };
}

function locationId(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw badRequest(`${name} is required`);
  if (!LOCATION_ID_PATTERN.test(value)) throw badRequest(`${name} must be a numeric location id, got ${JSON.stringify(value)}`);
  return value;
}

function searchConstraints(query: LocationQuery): SearchConstraints {
  const rawQ = nonEmpty(query, 'q');
  const parentId = matching(query, 'parent_location_id', LOCATION_ID_PATTERN, 'a numeric location id') ?? null;
  const q = rawQ === undefined ? null : normalizeSearchText(rawQ);
  if (q === '') throw badRequest('q must contain at least one letter or digit');
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

export async function search(context: LocationContext, query: LocationQuery): Promise<LocationResult> {
  assertAllowedParameters(query, SEARCH_PARAMETERS, SEARCH_LEGACY_ONLY);
  const constraints = searchConstraints(query);
  const limit = integerParam(query, 'limit', { min: 1, max: 50, fallback: 20 });
  const cursor = nonEmpty(query, 'cursor');
  const extra = localeExtra(query);
  let current = await release(context);
  const key = constraintsKey({ ...constraints });
  let after: CursorPosition | undefined;
  try {
    after = cursorPosition(current, key, cursor);
  } catch {
    // Maybe a cursor of a release loaded since this process last looked: look again before refusing it.
    current = await release(context, { fresh: true });
    after = cursorPosition(current, key, cursor);
  }
  const page = await fullReaderFor(context.db).search(current, key, constraints, limit, after);
  const nextCursor = page.next && encodeCursor(current.cursorSecret, current.releaseId, key, page.next);
  return {
    data: { ...catalogFields(current), locations: page.locations, ...(nextCursor && { next_cursor: nextCursor }) },
    extra: { ...extra, pagination: { limit, returned: page.locations.length, has_more: nextCursor !== undefined } },
  };
}

export async function resolve(context: LocationContext, query: LocationQuery): Promise<LocationResult> {
  assertAllowedParameters(query, RESOLVE_PARAMETERS, RESOLVE_LEGACY_ONLY);
  const id = locationId(single(query, 'location_id'), 'location_id');
  const extra = localeExtra(query);
  const current = await release(context);
  const location = await fullReaderFor(context.db).location(current, id);
  if (!location) throw notFound(`location_id ${id} is not an active location of the FULL catalog`);
  return {
    data: { ...catalogFields(current), location, path: location.path, location_ids: locationIdsOf(location), candidates: [] },
    extra,
  };
}

export async function lookup(context: LocationContext, id: string, query: LocationQuery): Promise<LocationResult> {
  assertAllowedParameters(query, LOOKUP_PARAMETERS);
  locationId(id, 'location_id');
  const extra = localeExtra(query);
  const current = await release(context);
  const location = await fullReaderFor(context.db).location(current, id);
  if (!location) throw notFound(`location ${id} is not an active location of the FULL catalog`);
  return { data: { ...catalogFields(current), location, path: location.path, location_ids: locationIdsOf(location) }, extra };
}
