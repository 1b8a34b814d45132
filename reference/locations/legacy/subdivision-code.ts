import { SUPERSEDED_CODES, TERRITORY_CODES } from './code-overrides.js';
import type { IndexedLocation, RegistryIndex } from './registry-index.js';
import type { ExternalCodes } from './source-row.js';

/**
 * Reading an external subdivision code (README.md, "Subdivision codes"). Codes are accepted in
 * any letter case and normalized to upper case. AUTO reads a hyphenated code as ISO 3166-2;
 * otherwise it tries CLDR (`USCA`), then the provider short code within `country` (`CA`).
 */
export const CODE_TYPES = ['AUTO', 'ISO_3166_2', 'CLDR', 'PROVIDER_SHORT'] as const;
export type CodeType = (typeof CODE_TYPES)[number];
export type ResolvedCodeType = Exclude<CodeType, 'AUTO'>;

/** Each form: what it looks like, which of a location's external codes it is, and the ISO 3166-2 code it writes (the overrides are kept by it). */
const FORMS: Record<ResolvedCodeType, { pattern: RegExp; example: string; own: keyof ExternalCodes; asIso: (code: string, country: string | undefined) => string }> = {
  ISO_3166_2: { pattern: /^[A-Z]{2}-[A-Z0-9]{1,3}$/, example: 'US-CA', own: 'iso_3166_2', asIso: (code) => code },
  CLDR: { pattern: /^[A-Z]{2}[A-Z0-9]{1,3}$/, example: 'USCA', own: 'cldr_subdivision', asIso: (code) => `${code.slice(0, 2)}-${code.slice(2)}` },
  PROVIDER_SHORT: { pattern: /^[A-Z0-9]{1,3}$/, example: 'CA', own: 'provider_short', asIso: (code, country) => `${country}-${code}` },
};

/** Input that cannot be read at all; `parameter` names the query parameter to fix. */
export class CodeInputError extends Error {
  constructor(readonly parameter: string, message: string) {
    super(message);
  }
}

export interface CodeMatch {
  location: IndexedLocation;
  matchedAs: ResolvedCodeType;
}

function find(index: RegistryIndex, code: string, type: ResolvedCodeType, country: string | undefined): IndexedLocation | undefined {
  const found = type === 'ISO_3166_2' ? index.byIsoCode(code)
    : type === 'CLDR' ? index.byCldrCode(code)
    : country !== undefined ? index.byProviderShort(country, code) : undefined;
  return found && (country === undefined || found.countryCode === country) ? found : undefined;
}

/**
 * The region a code names, or undefined when the registry has none (in `country`, when given).
 * Throws CodeInputError for a code that does not have the form of its type, and for a provider
 * short code without `country`.
 */
export function lookupSubdivision(index: RegistryIndex, rawCode: string, type: CodeType, country?: string): CodeMatch | undefined {
  const code = rawCode.toUpperCase();
  const fits = (form: ResolvedCodeType) => FORMS[form].pattern.test(code);
  const needCountry = () =>
    new CodeInputError('country', `country is required to read subdivision_code ${JSON.stringify(rawCode)} as a provider short code`);

  if (type !== 'AUTO') {
    if (!fits(type)) {
      throw new CodeInputError('subdivision_code', `subdivision_code must look like ${FORMS[type].example} for subdivision_code_type ${type}`);
    }
    if (type === 'PROVIDER_SHORT' && country === undefined) throw needCountry();
    const location = find(index, code, type, country);
    return location ? { location, matchedAs: type } : undefined;
  }

  const order: ResolvedCodeType[] = fits('ISO_3166_2') ? ['ISO_3166_2'] : (['CLDR', 'PROVIDER_SHORT'] as const).filter(fits);
  if (order.length === 0) {
    throw new CodeInputError('subdivision_code', 'subdivision_code must be an ISO 3166-2 (US-CA), CLDR (USCA) or provider short (CA) code');
  }
  for (const form of order) {
    if (form === 'PROVIDER_SHORT' && country === undefined) throw needCountry();
    const location = find(index, code, form, country);
    if (location) return { location, matchedAs: form };
  }
  return undefined;
}

/**
 * When `rawCode` found its location as an alias rather than as one of the location's own codes
 * (a superseded ISO code, or the ISO code of a territory the catalog lists as a country), a
 * sentence saying so, for `extra.warnings`: the answer's `external_codes` would not show the code
 * that found it. Undefined for the location's own code in any case. Pure.
 */
export function aliasNote(match: CodeMatch, rawCode: string, country: string | undefined): string | undefined {
  const code = rawCode.toUpperCase();
  const { location, matchedAs } = match;
  const form = FORMS[matchedAs];
  if (location.codes[form.own] === code) return undefined;
  const iso = form.asIso(code, country);
  const superseded = SUPERSEDED_CODES[iso];
  if (superseded) {
    return `subdivision_code ${rawCode} is a former code of ${location.name}, now ${superseded.current} (${superseded.reason}); ${location.name} is answered`;
  }
  if (TERRITORY_CODES[iso] !== undefined) {
    return `subdivision_code ${rawCode} is ISO 3166-2's code for ${location.name}, which the catalog lists as a country of its own (${location.countryCode}); that entry is answered`;
  }
  return `subdivision_code ${rawCode} is an alias of ${location.name}; ${location.name} is answered`;
}
