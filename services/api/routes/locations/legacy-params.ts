import { badRequest } from '../../../../platform/http/errors.js';
import { LEVELS, type Level } from '../../../../reference/locations/legacy/source-row.js';
import { CODE_TYPES, type CodeType } from '../../../../reference/locations/legacy/subdivision-code.js';
import type { LocationQuery } from './catalog-param.js';
import { assertAllowedParameters, COUNTRY_PATTERN, integerParam, listParam, LOCATION_ID_PATTERN, matching, single } from './params.js';

/**
 * LEGACY parameter rules on top of the shared helpers: unknown and FULL-only parameters are
 * rejected by name, and every parameter may appear once. Each failure is a 400 naming it.
 */
export function checkLegacyParams(query: LocationQuery, allowed: readonly string[], fullOnly: readonly string[]): void {
  const explain = Object.fromEntries(fullOnly.map((name) => [name, 'only accepted with catalog=FULL']));
  assertAllowedParameters(query, allowed, explain);
  for (const name of Object.keys(query)) single(query, name);
}

/** A parameter that, when present, must hold more than blanks. */
export function text(query: LocationQuery, name: string): string | undefined {
  const value = single(query, name);
  if (value !== undefined && value.trim() === '') throw badRequest(`${name} must not be empty`);
  return value;
}

export const limitParam = (query: LocationQuery, fallback: number) => integerParam(query, 'limit', { min: 1, max: 50, fallback });

/** ISO 3166-1 alpha-2 in upper case: the reference's pattern, the same in both catalogs. */
export function countryParam(query: LocationQuery): string | undefined {
  return matching(query, 'country', COUNTRY_PATTERN, 'an ISO 3166-1 alpha-2 code in upper case');
}

/** Any digit string is a well-formed id; whether the registry has it is a 404 question, not a 400. */
export function idParam(query: LocationQuery, name: string): string | undefined {
  return matching(query, name, LOCATION_ID_PATTERN, 'a numeric location id');
}

export function levelsParam(query: LocationQuery): ReadonlySet<Level> | undefined {
  const items = listParam(query, 'levels');
  if (items === undefined) return undefined;
  const bad = items.find((item) => !(LEVELS as readonly string[]).includes(item));
  if (bad !== undefined) throw badRequest(`levels must be a comma-separated subset of ${LEVELS.join(', ')}, got ${JSON.stringify(bad)}`);
  return new Set(items as Level[]);
}

export function codeTypeParam(query: LocationQuery, hasCode: boolean): CodeType {
  const value = single(query, 'subdivision_code_type');
  if (value === undefined) return 'AUTO';
  if (!(CODE_TYPES as readonly string[]).includes(value)) {
    throw badRequest(`subdivision_code_type must be one of ${CODE_TYPES.join(', ')}, got ${JSON.stringify(value)}`);
  }
  if (!hasCode) throw badRequest('subdivision_code_type is only meaningful with subdivision_code');
  return value as CodeType;
}
