import { badRequest } from '../../../../platform/http/errors.js';
import type { LocationQuery } from './catalog-param.js';

/**
 * Generic query-parameter rules shared by the location handlers. Every failure is a 400
 * BAD_REQUEST whose message names the parameter.
 */

/** A parameter's name as a message shows it: plain names as they are, others (empty, spaces, long) quoted. */
const shownName = (name: string) => (/^[\w.-]{1,100}$/.test(name) ? name : JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name));

/**
 * Rejects any parameter not in `allowed`. `explain` gives a specific message for parameters known
 * elsewhere (e.g. LEGACY-only ones in FULL); the rest are reported as unknown, all of them at once.
 */
export function assertAllowedParameters(query: LocationQuery, allowed: readonly string[], explain: Record<string, string> = {}): void {
  const unknown: string[] = [];
  for (const name of Object.keys(query)) {
    if (allowed.includes(name)) continue;
    const reason = Object.hasOwn(explain, name) ? explain[name] : undefined;
    if (reason !== undefined) throw badRequest(`${name}: ${reason}`);
    unknown.push(name);
  }
  const named = unknown.map(shownName);
  if (named.length === 1) throw badRequest(`unknown parameter ${named[0]}; allowed: ${allowed.join(', ')}`);
  if (named.length > 1) throw badRequest(`unknown parameters ${named.join(', ')}; allowed: ${allowed.join(', ')}`);
}

/** `extra.warnings` entry when `locale` is given: one text for both catalogs. */
export const LOCALE_WARNING = 'locale is reserved for future localized names; results use registry names';

/** The one value of a parameter (undefined when absent); a repeated parameter is a 400. */
export function single(query: LocationQuery, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw badRequest(`${name} is given more than once; give it once`);
  return value;
}

/**
 * Like single(), but an empty value is a 400: `cursor=` is a lost cursor, not a first page (a
 * client restarting silently would see every result twice), and `q=` is no search text.
 */
export function nonEmpty(query: LocationQuery, name: string, advice?: string): string | undefined {
  const value = single(query, name);
  if (value === '') throw badRequest(`${name} must not be empty${advice ? `; ${advice}` : ''}`);
  return value;
}

/** A value that must match `pattern` when present; `shape` is how the message describes it. */
export function matching(query: LocationQuery, name: string, pattern: RegExp, shape: string): string | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  if (!pattern.test(value)) throw badRequest(`${name} must be ${shape}, got ${JSON.stringify(value)}`);
  return value;
}

/** An integer in [min, max], `fallback` when absent. */
export function integerParam(query: LocationQuery, name: string, { min, max, fallback }: { min: number; max: number; fallback: number }): number {
  const value = single(query, name);
  if (value === undefined) return fallback;
  const number = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw badRequest(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** A comma-separated list of non-empty items (duplicates removed), undefined when absent. */
export function listParam(query: LocationQuery, name: string): string[] | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) throw badRequest(`${name} must be a comma-separated list without empty items, got ${JSON.stringify(value)}`);
  return [...new Set(items)];
}

export const LOCATION_ID_PATTERN = /^[0-9]+$/;
export const COUNTRY_PATTERN = /^[A-Z]{2}$/;
