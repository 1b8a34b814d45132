export type { SourceRow } from '../geo-target-row.js';

/** Served as `registry_version` in every LEGACY response. */
export const REGISTRY_VERSION = 'v1';

export type Level = 'COUNTRY' | 'REGION' | 'CITY';

export const LEVELS: readonly Level[] = ['COUNTRY', 'REGION', 'CITY'];

/** Ranking and browsing order: countries before regions before cities. */
export const LEVEL_WEIGHT: Record<Level, number> = { COUNTRY: 0, REGION: 1, CITY: 2 };

/** One registry v1 record: a normalized location with its immediate registry parent. */
export interface RegistryEntry {
  id: string;
  name: string;
  canonicalName: string;
  countryCode: string;
  targetType: string;
  level: Level;
  parentId: string | null;
}

export interface ExternalCodes {
  iso_3166_2?: string;
  cldr_subdivision?: string;
  provider_short?: string;
}
