import type { Sql } from '../../../platform/db/db.js';
import type { Level } from './source-row.js';

/** The LEGACY registry's reads, for the processes that answer from it. */

/** The stored registry build: one row once a release has been loaded. */
export interface RegistryBuild {
  fingerprint: string;
  built_at: Date;
  source_file_date: string;
  /** Countries, regions and cities together. */
  size: number;
}

/** One registry entry as stored. */
export interface RegistryLocationRow {
  location_id: string;
  name: string;
  canonical_name: string;
  country_code: string;
  target_type: string;
  level: Level;
  parent_location_id: string | null;
  iso_3166_2: string | null;
  cldr_subdivision: string | null;
  provider_short: string | null;
}

/**
 * SQL for queries of other modules that read the registry in the same statement (the FULL
 * catalog's `legacy_level`, the index state's build fingerprint): a LEFT JOIN giving
 * `${alias}.legacy_level` for the location id `idExpression` (null when it is no registry entry).
 */
export const legacyLevelJoin = (alias: string, idExpression: string) =>
  `LEFT JOIN (SELECT location_id, level AS legacy_level FROM legacy_registry_locations) ${alias} ON ${alias}.location_id = ${idExpression}`;

/** As legacyLevelJoin, as one value: the LEGACY level of the location id `idExpression`, or null. */
export const legacyLevelOf = (idExpression: string) => `(SELECT level FROM legacy_registry_locations WHERE location_id = ${idExpression})`;

/** As legacyLevelJoin: `${alias}.legacy_fingerprint` and `${alias}.legacy_built_at` of the current build (null before one). */
export const legacyBuildJoin = (alias: string) =>
  `LEFT JOIN (SELECT fingerprint AS legacy_fingerprint, built_at AS legacy_built_at FROM legacy_registry_build) ${alias} ON true`;

/** The current build, undefined when no registry has been built. */
export async function registryBuild(sql: Sql): Promise<RegistryBuild | undefined> {
  const { rows } = await sql.query<RegistryBuild>(
    'SELECT fingerprint, built_at, source_file_date, countries + regions + cities AS size FROM legacy_registry_build',
  );
  return rows[0];
}

/** Up to `limit` entries after `afterId` in id order (keyset pages: read them in one snapshot). */
export async function registryLocationsPage(sql: Sql, afterId: string, limit: number): Promise<RegistryLocationRow[]> {
  const { rows } = await sql.query<RegistryLocationRow>(
    `SELECT location_id, name, canonical_name, country_code, target_type, level, parent_location_id,
            iso_3166_2, cldr_subdivision, provider_short
       FROM legacy_registry_locations WHERE location_id > $1 ORDER BY location_id LIMIT $2`,
    [afterId, limit],
  );
  return rows;
}

/**
 * The registry's chain of one entry, self to root (`[]` when the registry has no such entry):
 * its parents, which place a city whose FULL parent is missing from the release under its region
 * or country.
 */
export async function registryChain(sql: Sql, locationId: string): Promise<string[]> {
  const { rows } = await sql.query<{ location_id: string }>(
    `WITH RECURSIVE chain(location_id, parent_location_id, depth) AS (
       SELECT location_id, parent_location_id, 0 FROM legacy_registry_locations WHERE location_id = $1
       UNION ALL
       SELECT l.location_id, l.parent_location_id, chain.depth + 1
         FROM legacy_registry_locations l JOIN chain ON l.location_id = chain.parent_location_id
        WHERE chain.depth < 10
     )
     SELECT location_id FROM chain ORDER BY depth`,
    [locationId],
  );
  return rows.map((row) => row.location_id);
}
