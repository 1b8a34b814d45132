/**
 * Reviewed decisions about what an ISO 3166-2 code means, where neither source can be followed
 * as is (README.md, "Which codes a region may carry"). Each entry is one fact with its reason.
 * Keep this list short: the rule (a code's current ISO name must agree with the region) decides
 * everything else.
 */
export interface CodeNameOverride {
  /** The only names the code is matched and checked by; CLDR's and ISO's are not used for it. */
  names: readonly string[];
  reason: string;
}

export const CODE_NAME_OVERRIDES: Readonly<Record<string, CodeNameOverride>> = {
  'TW-CYI': { names: ['Chiayi City'], reason: 'ISO names CYI and CYQ both "Chiayi"; CYI is the city, and CLDR\'s English names swap the two' },
  'TW-CYQ': { names: ['Chiayi County'], reason: 'ISO names CYI and CYQ both "Chiayi"; CYQ is the county' },
  'TW-HSZ': { names: ['Hsinchu City'], reason: 'ISO names HSZ and HSQ both "Hsinchu"; HSZ is the city' },
  'TW-HSQ': { names: ['Hsinchu County'], reason: 'ISO names HSZ and HSQ both "Hsinchu"; HSQ is the county' },
};

export interface SupersededCode {
  current: string;
  reason: string;
}

/**
 * Codes ISO 3166-2 has replaced with a new code for the same subdivision. Geo-IP databases and
 * provider region headers still send the old ones, so they resolve, as aliases, to the region
 * carrying the current code (which is what `external_codes` shows). Only same-territory recodings
 * belong here: a code whose territory changed is not an alias of its successor.
 */
export const SUPERSEDED_CODES: Readonly<Record<string, SupersededCode>> = {
  'IN-CT': { current: 'IN-CG', reason: 'Chhattisgarh: ISO replaced CT with CG' },
  'IN-OR': { current: 'IN-OD', reason: 'Orissa renamed Odisha: ISO replaced OR with OD' },
  'IN-TG': { current: 'IN-TS', reason: 'Telangana: ISO replaced TG with TS' },
  'IN-UT': { current: 'IN-UK', reason: 'Uttarakhand: ISO replaced UT with UK' },
};

/**
 * ISO 3166-2 codes of territories that ISO lists as subdivisions of one country and the provider
 * (like ISO 3166-1) lists as countries of their own: Hong Kong is CN-HK in ISO 3166-2 and the
 * country HK in the catalog. Such a code resolves, in its ISO and CLDR forms, to that country's
 * entry, unless a region carries it. Each entry is the code → the country code of its entry.
 */
export const TERRITORY_CODES: Readonly<Record<string, string>> = {
  'CN-HK': 'HK', 'CN-MO': 'MO', 'CN-TW': 'TW',
  'US-AS': 'AS', 'US-GU': 'GU', 'US-MP': 'MP', 'US-PR': 'PR', 'US-UM': 'UM', 'US-VI': 'VI',
  'FR-971': 'GP', 'FR-972': 'MQ', 'FR-973': 'GF', 'FR-974': 'RE', 'FR-976': 'YT',
  'FR-BL': 'BL', 'FR-MF': 'MF', 'FR-PM': 'PM', 'FR-WF': 'WF', 'FR-PF': 'PF', 'FR-NC': 'NC', 'FR-TF': 'TF',
  'NL-AW': 'AW', 'NL-CW': 'CW', 'NL-SX': 'SX', 'NL-BQ1': 'BQ', 'NL-BQ2': 'BQ', 'NL-BQ3': 'BQ',
  'NO-21': 'SJ', 'NO-22': 'SJ', 'FI-01': 'AX',
};
