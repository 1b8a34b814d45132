import { failure, success } from '../../../../platform/http/envelope.js';
import { RATE_LIMITED_EXAMPLES } from '../../client-rate-limit.js';
import { methodNotAllowedExample, type ResponseExamples } from '../../../../platform/http/response-examples.js';
import { catalogNotLoaded } from './catalog-not-loaded.js';

/**
 * Example answers of the three location routes for the document (reference: Location object, the
 * location routes; errors as the README chooses them), taken from the pinned catalog's records.
 */

const SOURCE_FILE_DATE = '2025-07-15';
const LEGACY = { registry_version: 'v1', source_file_date: SOURCE_FILE_DATE };
const FULL = { catalog: 'FULL', catalog_version: 'v1', source_file_date: SOURCE_FILE_DATE };

const legacyUnitedStates = { location_id: '2840', name: 'United States', level: 'COUNTRY' };
const legacyCalifornia = {
  location_id: '21137',
  name: 'California',
  canonical_name: 'California,United States',
  country_code: 'US',
  target_type: 'State',
  level: 'REGION',
  parent_location_id: '2840',
  path: [legacyUnitedStates, { location_id: '21137', name: 'California', level: 'REGION' }],
  external_codes: { iso_3166_2: 'US-CA', cldr_subdivision: 'USCA', provider_short: 'CA' },
};

const fullNode = (location_id: string, name: string, canonical_name: string, country_code: string, target_type: string, hierarchy_precision: number, legacy_level?: string) => ({
  location_id, name, canonical_name, country_code, target_type, hierarchy_precision, ...(legacy_level ? { legacy_level } : {}),
});
const fullUnitedStatesNode = fullNode('2840', 'United States', 'United States', 'US', 'Country', 1, 'COUNTRY');
const fullUnitedStates = { ...fullUnitedStatesNode, source_parent_location_id: null, parent_location_id: null, path: [fullUnitedStatesNode], chain_status: 'COMPLETE' };
// A raw type with no LEGACY level: no legacy_level. Its source parent is the state itself.
const twinPeaksPath = [
  fullUnitedStatesNode,
  fullNode('21137', 'California', 'California,United States', 'US', 'State', 2, 'REGION'),
  fullNode('9061257', 'Twin Peaks', 'Twin Peaks,San Francisco County,California,United States', 'US', 'Neighborhood', 3),
];
const fullTwinPeaks = { ...twinPeaksPath[2]!, source_parent_location_id: '21137', parent_location_id: '21137', path: twinPeaksPath, chain_status: 'COMPLETE' };
// When the loaded catalog does not hold the source parent (as in an excerpt of the release): it is
// reported, never invented in path or location_ids.
const kabulNode = fullNode('1000002', 'Kabul', 'Kabul,Kabul,Afghanistan', 'AF', 'City', 1, 'CITY');
const fullKabul = {
  ...kabulNode,
  source_parent_location_id: '9075393',
  parent_location_id: null,
  path: [kabulNode],
  chain_status: 'UNRESOLVED_SOURCE_PARENT',
  unresolved_source_parent_location_id: '9075393',
};

/** The routes' shared error examples; each route gives its own 400 and 404, as it words them. */
const errors = {
  429: RATE_LIMITED_EXAMPLES,
  503: {
    CATALOG_NOT_LOADED: { summary: 'no geo-target release is loaded yet', value: failure('CATALOG_NOT_LOADED', catalogNotLoaded('FULL').message) },
  },
};

export const searchExamples: ResponseExamples = {
  200: {
    legacy: {
      summary: 'LEGACY: q=calif&country=US',
      value: success({ ...LEGACY, locations: [legacyCalifornia] }, { pagination: { limit: 20, returned: 1, has_more: false } }),
    },
    full: {
      summary: 'FULL: q=twin peaks&limit=1, with another page',
      value: success(
        { ...FULL, locations: [fullTwinPeaks], next_cursor: 'eyJyZWxlYXNlIjoxLCJjb25zdHJhaW50cyI6Ik4weTgwZVlFelEwc2pTUHc5LVF2QTYiLCJ0aWVyIjoxLCJidWNrZXQiOjQsIm5hbWUiOiJ0d2luIHBlYWtzIiwiaWQiOiI5MDYxMjU3In0.AA56cCDVvjbQ5cwbHhc9_A' },
        { pagination: { limit: 1, returned: 1, has_more: true } },
      ),
    },
  },
  ...errors,
  400: { BAD_REQUEST: { summary: 'a LEGACY-only parameter sent to the FULL catalog', value: failure('BAD_REQUEST', 'levels: is a LEGACY-only parameter; the FULL catalog does not accept it') } },
  404: { NOT_FOUND: { summary: 'LEGACY: a parent the registry does not have', value: failure('NOT_FOUND', 'parent_location_id 999999999 is not in the LEGACY registry') } },
  405: methodNotAllowedExample('GET, HEAD', 'POST'),
};

export const resolveExamples: ResponseExamples = {
  200: {
    legacy: {
      summary: 'LEGACY: country=US&subdivision_code=US-CA',
      value: success(
        { ...LEGACY, location: legacyCalifornia, path: legacyCalifornia.path, location_ids: ['21137', '2840'], candidates: [legacyCalifornia] },
        { subdivision_code_type: 'ISO_3166_2' },
      ),
    },
    full: {
      summary: 'FULL: location_id=9061257',
      value: success({ ...FULL, location: fullTwinPeaks, path: twinPeaksPath, location_ids: ['9061257', '21137', '2840'], candidates: [] }),
    },
  },
  ...errors,
  400: { BAD_REQUEST: { summary: 'FULL without location_id', value: failure('BAD_REQUEST', 'location_id is required') } },
  404: { NOT_FOUND: { summary: 'LEGACY: a subdivision code no region has', value: failure('NOT_FOUND', 'no LEGACY region has subdivision_code "US-ZZ" in country US') } },
  405: methodNotAllowedExample('GET, HEAD', 'POST'),
};

export const lookupExamples: ResponseExamples = {
  200: {
    legacy: {
      summary: 'LEGACY: /v1/locations/2840',
      value: success({ ...LEGACY, location: { ...legacyUnitedStates, canonical_name: 'United States', country_code: 'US', target_type: 'Country', parent_location_id: null, path: [legacyUnitedStates] }, path: [legacyUnitedStates], location_ids: ['2840'] }),
    },
    full: {
      summary: 'FULL: /v1/locations/2840?catalog=FULL',
      value: success({ ...FULL, location: fullUnitedStates, path: fullUnitedStates.path, location_ids: ['2840'] }),
    },
    full_unresolved: {
      summary: 'FULL: a record whose source parent cannot be verified',
      value: success({ ...FULL, location: fullKabul, path: fullKabul.path, location_ids: ['1000002'] }),
    },
  },
  ...errors,
  400: { BAD_REQUEST: { summary: 'a parameter this route does not take', value: failure('BAD_REQUEST', 'unknown parameter levels; allowed: catalog, locale') } },
  404: { NOT_FOUND: { summary: 'an id the catalog does not have', value: failure('NOT_FOUND', 'location 999999999 is not in the LEGACY registry') } },
  405: methodNotAllowedExample('GET, HEAD', 'POST'),
};
