import type { RegistryEntry } from './source-row.js';

/**
 * The static registry entry of the reference (offline, LEGACY only). No ancestor caches:
 * consumers derive chains from `parent_location_id`.
 */
export interface StaticRegistryEntry {
  location_id: string;
  name: string;
  canonical_name: string;
  country_code: string;
  target_type: string;
  svc_level: RegistryEntry['level'];
  parent_location_id: string | null;
}

export function staticEntry(entry: RegistryEntry): StaticRegistryEntry {
  return {
    location_id: entry.id,
    name: entry.name,
    canonical_name: entry.canonicalName,
    country_code: entry.countryCode,
    target_type: entry.targetType,
    svc_level: entry.level,
    parent_location_id: entry.parentId,
  };
}

/** JSON Lines: one entry per line, parents before children (countries, regions, cities), then by id. */
export function toJsonLines(entries: RegistryEntry[]): string {
  const order = { COUNTRY: 0, REGION: 1, CITY: 2 } as const;
  const sorted = [...entries].sort((a, b) => order[a.level] - order[b.level] || a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return sorted.map((entry) => `${JSON.stringify(staticEntry(entry))}\n`).join('');
}
