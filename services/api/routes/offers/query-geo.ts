import type { Db } from '../../../../platform/db/db.js';
import { ApiError } from '../../../../platform/http/errors.js';
import { fullReaderFor } from '../../../../reference/locations/full/reader.js';
import { foldText } from '../../../../reference/locations/legacy/normalize.js';
import type { IndexedLocation, RegistryIndex } from '../../../../reference/locations/legacy/registry-index.js';
import { CodeInputError, lookupSubdivision } from '../../../../reference/locations/legacy/subdivision-code.js';
import { targetingChain } from '../../../../reference/locations/targeting-chain.js';
import { currentRegistry } from '../locations/legacy-registry.js';

/**
 * The caller's location for Query targeting, taken only from provider region headers an operator
 * trusts (TRUSTED_GEO_HEADERS). Headers of a family that is not trusted are ignored entirely: any
 * client can send them. External codes are aliases only: they are resolved to a LEGACY registry
 * id, and targeting then uses that id's FULL chain (completed by the registry's where the FULL
 * chain stops at a parent missing from the release).
 */
export type GeoFamily = 'cloudflare' | 'cloudfront' | 'vercel';

/** Header names (lowercase, as Node gives them) of each family: country, first-level region code, city. */
const GEO_HEADERS: Record<GeoFamily, { country: string; region: string; city: string }> = {
  cloudflare: { country: 'cf-ipcountry', region: 'cf-region-code', city: 'cf-ipcity' },
  cloudfront: { country: 'cloudfront-viewer-country', region: 'cloudfront-viewer-country-region', city: 'cloudfront-viewer-city' },
  vercel: { country: 'x-vercel-ip-country', region: 'x-vercel-ip-country-region', city: 'x-vercel-ip-city' },
};

export interface GeoReading {
  family: GeoFamily;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  /** The region part of an ISO 3166-2 code (`CA` of US-CA), upper case. */
  region?: string;
  city?: string;
}

type Headers = Record<string, string | string[] | undefined>;

/**
 * The request's headers of the trusted families, every copy kept, from its raw headers (name,
 * value, name, value…): Node's `headers` joins copies of these names with ", ", which reads as no
 * code at all.
 */
export function trustedGeoHeaders(rawHeaders: readonly string[], trusted: readonly GeoFamily[]): Record<string, string[]> {
  const wanted = new Set(trusted.flatMap((family) => Object.values(GEO_HEADERS[family])));
  const found: Record<string, string[]> = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toLowerCase();
    if (wanted.has(name)) (found[name] ??= []).push(rawHeaders[index + 1]!);
  }
  return found;
}

/** A header given more than once with values that differ: it names no one place. */
const CONFLICT = Symbol('conflicting values');

/** A header's value, trimmed. Copies that agree (case aside) are one value; copies that differ are CONFLICT. */
function header(headers: Headers, name: string): string | typeof CONFLICT | undefined {
  const raw = headers[name];
  const values = [...new Set((Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map((value) => value.trim()).filter(Boolean))];
  if (values.length > 1 && new Set(values.map((value) => value.toUpperCase())).size > 1) return CONFLICT;
  return values[0];
}

/**
 * A city header as text. Vercel percent-encodes non-ASCII characters (RFC 3986), so a value with
 * valid escapes is decoded; Node reads header bytes as Latin-1, so raw UTF-8 bytes are re-read
 * as UTF-8 when they form valid UTF-8.
 */
export function cityText(value: string): string {
  let text = value;
  if (/%[0-9A-Fa-f]{2}/.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      // Not percent-encoding after all: keep the value as sent.
    }
  }
  if (/[\u0080-\u00ff]/.test(text) && !/[^\u0000-\u00ff]/.test(text)) {
    const utf8 = Buffer.from(text, 'latin1').toString('utf8');
    if (!utf8.includes('\ufffd')) text = utf8;
  }
  return text.trim();
}

/**
 * Whether `code` (upper case) can name a country: two letters, not one of the codes ISO 3166-1
 * leaves to its users (AA, QM-QZ, XA-XZ, ZZ), which CDNs send for "no country known" (Cloudflare's
 * XX) or for no country at all. XK stays: CDNs send it for Kosovo.
 */
function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code)) return false;
  if (code === 'XK') return true;
  const userAssigned = code === 'AA' || code === 'ZZ' || (code[0] === 'Q' && code[1]! >= 'M') || code[0] === 'X';
  return !userAssigned;
}

/** The first trusted family (in TRUSTED_GEO_HEADERS order) whose country header holds a country code. */
export function readTrustedGeo(headers: Headers, trusted: readonly GeoFamily[]): GeoReading | undefined {
  for (const family of trusted) {
    const names = GEO_HEADERS[family];
    const given = header(headers, names.country);
    // Two countries from the family trusted first: the caller's place is unknown, and a family
    // trusted less does not get to name it instead.
    if (given === CONFLICT) return undefined;
    const country = given?.toUpperCase();
    if (!country || !isCountryCode(country)) continue;
    const region = header(headers, names.region);
    const city = header(headers, names.city);
    // A region or city given twice, differently, is left out: the caller stays at the level above.
    return {
      family,
      country,
      ...(region && region !== CONFLICT ? { region: region.toUpperCase() } : {}),
      ...(city && city !== CONFLICT ? { city: cityText(city) } : {}),
    };
  }
  return undefined;
}

/**
 * The most specific registry location a reading names: the city (under the region, or under the
 * country when it has no regions) whose folded name equals the city header, else the region its
 * code names in that country, else the country; undefined for a country the registry does not
 * have (Cloudflare's `XX` and `T1` included). A city name two cities share names neither.
 */
function resolveReading(index: RegistryIndex, reading: GeoReading): IndexedLocation | undefined {
  const country = index.countryByCode.get(reading.country);
  if (!country) return undefined;
  let region: IndexedLocation | undefined;
  if (reading.region && /^[A-Z0-9]{1,3}$/.test(reading.region)) {
    try {
      region = lookupSubdivision(index, reading.region, 'PROVIDER_SHORT', reading.country)?.location;
    } catch (error) {
      if (!(error instanceof CodeInputError)) throw error;
    }
  }
  const scope = region ?? country;
  const city = reading.city === undefined ? '' : foldText(reading.city);
  if (city !== '') {
    const cities = index.childrenOf(scope.id).filter((location) => location.level === 'CITY' && location.folded === city);
    if (cities.length === 1) return cities[0];
  }
  return scope;
}

export interface CallerLocation {
  location_id: string;
  /** The location's targeting chain, self to root (targetingChain): what targeting matches against. */
  chain: string[];
}

/**
 * The caller's location from the request's trusted headers, or null (no trusted header, an
 * unknown place, or no catalog loaded: the location is then unknown, which targeted offers are
 * not served to).
 */
export async function callerLocation(db: Db, rawHeaders: readonly string[], trusted: readonly GeoFamily[]): Promise<CallerLocation | null> {
  if (trusted.length === 0) return null;
  const reading = readTrustedGeo(trustedGeoHeaders(rawHeaders, trusted), trusted);
  if (!reading) return null;
  let registry: RegistryIndex;
  try {
    registry = await currentRegistry(db);
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 503) return null;
    throw error;
  }
  const location = resolveReading(registry, reading);
  if (!location) return null;
  const registryIds = registry.pathOf(location).map((l) => l.id).reverse();
  const full = await fullReaderFor(db).current();
  const row = full?.rowOf(location.id);
  // The registry is derived from the current FULL release, so its ids are there; while a new
  // release is being indexed, the registry's own path stands in.
  const fullIds = full === undefined || row === undefined ? [] : full.pathOf(row).reverse().map((r) => full.ids.at(r)!);
  return { location_id: location.id, chain: targetingChain(fullIds, registryIds) };
}
