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
