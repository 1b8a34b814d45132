import type { Sql } from '../../../platform/db/db.js';
import { legacyLevelJoin, legacyLevelOf } from '../legacy/queries.js';

/** The FULL catalog's reads. Every read is of the current release. */
export interface CurrentRelease {
  releaseId: number;
  sourceFileDate: string;
  cursorSecret: string;
}

export interface PathNode {
  location_id: string;
  name: string;
  canonical_name: string;
  country_code: string;
  target_type: string;
  hierarchy_precision: number;
  legacy_level?: 'COUNTRY' | 'REGION' | 'CITY';
}

/** The fields a location object copies unchanged from its geo_full_locations row. */
interface LocationFields {
  location_id: string;
  name: string;
  canonical_name: string;
  country_code: string;
  target_type: string;
  source_parent_location_id: string | null;
  parent_location_id: string | null;
}

/** The FULL location object of the reference. */
export interface FullLocation extends LocationFields {
  path: PathNode[];
  hierarchy_precision: number;
  legacy_level?: 'COUNTRY' | 'REGION' | 'CITY';
  chain_status: 'COMPLETE' | 'UNRESOLVED_SOURCE_PARENT';
  unresolved_source_parent_location_id?: string;
}

export async function currentRelease(sql: Sql): Promise<CurrentRelease | undefined> {
  const { rows } = await sql.query<{ release_id: number; source_file_date: string; cursor_secret: string }>(
    'SELECT release_id, source_file_date, cursor_secret FROM geo_full_releases WHERE is_current',
  );
  const row = rows[0];
  return row && { releaseId: row.release_id, sourceFileDate: row.source_file_date, cursorSecret: row.cursor_secret };
}

/** The stored columns a location is built from (select these from `l` in subqueries). */
export const STORED_COLUMNS = `l.release_id, l.location_id, l.name, l.canonical_name, l.country_code, l.target_type,
  l.source_parent_location_id, l.parent_location_id, l.chain_status, l.unresolved_source_parent_location_id,
  l.hierarchy_precision, l.path_ids`;

/**
 * Select list over `alias` (a row with STORED_COLUMNS) that yields one location; the path nodes
 * come from the precomputed path_ids, one primary-key read per ancestor. `legacy_level` is the
 * level of the same id in the LEGACY registry (reference/locations/legacy), absent when the
 * location is not a registry entry: that is what "representable" means.
 */
export const locationColumns = (alias: string) => `
  ${alias}.location_id, ${alias}.name, ${alias}.canonical_name, ${alias}.country_code, ${alias}.target_type,
  ${alias}.source_parent_location_id, ${alias}.parent_location_id, ${alias}.chain_status,
  ${alias}.unresolved_source_parent_location_id, ${alias}.hierarchy_precision,
  ${legacyLevelOf(`${alias}.location_id`)} AS legacy_level,
  (SELECT json_agg(json_strip_nulls(json_build_object(
      'location_id', a.location_id::text, 'name', a.name, 'canonical_name', a.canonical_name,
      'country_code', a.country_code, 'target_type', a.target_type,
      'hierarchy_precision', a.hierarchy_precision, 'legacy_level', r.legacy_level)) ORDER BY p.ord)
     FROM unnest(${alias}.path_ids) WITH ORDINALITY AS p(id, ord)
     JOIN geo_full_locations a ON a.release_id = ${alias}.release_id AND a.location_id = p.id
     ${legacyLevelJoin('r', 'a.location_id')}) AS path`;

/** A geo_full_locations row as read, with the LEGACY level of its id. */
export interface StoredLocationRow extends LocationFields {
  chain_status: 'COMPLETE' | 'UNRESOLVED_SOURCE_PARENT';
  unresolved_source_parent_location_id: string | null;
  legacy_level: 'COUNTRY' | 'REGION' | 'CITY' | null;
}

export interface LocationRow extends StoredLocationRow {
  hierarchy_precision: number;
  path: PathNode[] | string;
}

/** Row → location object; optional fields are omitted, never null. */
export function toLocation(row: LocationRow): FullLocation {
  return {
    location_id: row.location_id,
    name: row.name,
    canonical_name: row.canonical_name,
    country_code: row.country_code,
    target_type: row.target_type,
    source_parent_location_id: row.source_parent_location_id,
    parent_location_id: row.parent_location_id,
    path: typeof row.path === 'string' ? (JSON.parse(row.path) as PathNode[]) : row.path,
    hierarchy_precision: row.hierarchy_precision,
    ...(row.legacy_level !== null && { legacy_level: row.legacy_level }),
    chain_status: row.chain_status,
    ...(row.unresolved_source_parent_location_id !== null && {
      unresolved_source_parent_location_id: row.unresolved_source_parent_location_id,
    }),
  };
}

/** location_ids: the path's ids self-to-root. */
export const locationIdsOf = (location: FullLocation) => location.path.map((node) => node.location_id).reverse();

const MAX_BIGINT = 9_223_372_036_854_775_807n;
/** Whether a digit string can be a stored id (larger ones cannot exist, and must not reach a bigint cast). */
export const fitsBigint = (digits: string) => digits.length < 20 && BigInt(digits) <= MAX_BIGINT;

/** One active location of the current release with its path, or undefined. */
export async function findLocation(sql: Sql, releaseId: number, locationId: string): Promise<FullLocation | undefined> {
  if (!fitsBigint(locationId)) return undefined;
  const { rows } = await sql.query<LocationRow>(
    `SELECT ${locationColumns('l')} FROM geo_full_locations l WHERE l.release_id = $1 AND l.location_id = $2`,
    [releaseId, locationId],
  );
  return rows[0] && toLocation(rows[0]);
}

/** Which of `ids` are locations of the release, in one query (an offer's targeting names up to a thousand). */
export async function existingLocationIds(sql: Sql, releaseId: number, ids: string[]): Promise<Set<string>> {
  // Ids beyond bigint cannot be in the table; leave them out of the cast.
  const candidates = [...new Set(ids)].filter(fitsBigint);
  const { rows } = await sql.query<{ location_id: string }>(
    'SELECT location_id::text FROM geo_full_locations WHERE release_id = $1 AND location_id = ANY($2::bigint[])',
    [releaseId, candidates],
  );
  return new Set(rows.map((row) => row.location_id));
}

/** The first `limit` location ids of the current release, in id order (the seed's targeting draws from them). */
export async function currentLocationIds(sql: Sql, limit: number): Promise<string[]> {
  const { rows } = await sql.query<{ location_id: string }>(
    `SELECT l.location_id::text FROM geo_full_releases r JOIN geo_full_locations l ON l.release_id = r.release_id
     WHERE r.is_current ORDER BY l.location_id LIMIT $1`,
    [limit],
  );
  return rows.map((row) => row.location_id);
}

/** The current release and the sha256 of its file (what the LEGACY registry is derived from); undefined when none is loaded. */
export async function currentReleaseSource(sql: Sql): Promise<{ releaseId: number; sourceFileDate: string; fileSha256: string } | undefined> {
  const { rows } = await sql.query<{ release_id: number; source_file_date: string; file_sha256: string }>(
    'SELECT release_id, source_file_date, file_sha256 FROM geo_full_releases WHERE is_current',
  );
  const row = rows[0];
  return row && { releaseId: row.release_id, sourceFileDate: row.source_file_date, fileSha256: row.file_sha256 };
}

/** A release's records as loaded (source parents, not the verified ones): the LEGACY registry is derived from them. */
export interface ReleaseRecord {
  id: string;
  name: string;
  canonical_name: string;
  parent: string | null;
  country_code: string;
  target_type: string;
}

export async function releaseRecords(sql: Sql, releaseId: number): Promise<ReleaseRecord[]> {
  const { rows } = await sql.query<ReleaseRecord>(
    `SELECT location_id AS id, name, canonical_name, source_parent_location_id AS parent, country_code, target_type
       FROM geo_full_locations WHERE release_id = $1`,
    [releaseId],
  );
  return rows;
}
