import { createHash } from 'node:crypto';
import type { Db, Sql } from '../../../platform/db/db.js';
import { currentRelease, currentReleaseSource, releaseRecords } from '../full/queries.js';
import { deriveRegistry } from './derive.js';
import { CODE_NAME_OVERRIDES } from './code-overrides.js';
import { matchRegions, type RegionMatch } from './match.js';
import { PROVIDER_NAME_ALIASES } from './provider-aliases.js';
import { REGISTRY_VERSION, type RegistryEntry, type SourceRow } from './source-row.js';
import { loadSubdivisions, type SubdivisionSource } from './subdivisions.js';
import { ADVISORY_LOCK_KEYS } from '../../../platform/db/advisory-locks.js';

/** Bump when derive.ts or match.ts change what they produce, so the next start rebuilds. */
const DERIVATION_VERSION = '2';
const BATCH = 5_000;

export interface BuildOptions {
  log?: (line: string) => void;
  /** Rebuild even when the stored build has the same fingerprint. */
  force?: boolean;
  /** Injected in tests; loaded from the npm packages otherwise. */
  subdivisions?: SubdivisionSource;
}

export interface BuildSummary {
  status: 'built' | 'up-to-date';
  sourceFileDate: string;
  countries: number;
  regions: number;
  cities: number;
  regionsWithCodes: number;
}

export interface RegistryRow extends RegistryEntry {
  match?: RegionMatch;
}

/** Pure: the registry with its external codes, from source rows and the code sources. */
export function registryRows(rows: Iterable<SourceRow>, subdivisions: SubdivisionSource): RegistryRow[] {
  const { entries } = deriveRegistry(rows);
  const countryNames = new Map(entries.filter((entry) => entry.level === 'COUNTRY').map((entry) => [entry.countryCode, entry.name]));
  const matches = new Map(
    matchRegions(entries.filter((entry) => entry.level === 'REGION'), subdivisions.byCountry, countryNames)
      .map((match) => [match.regionId, match]),
  );
  return entries.map((entry) => {
    const match = matches.get(entry.id);
    return match ? { ...entry, match } : entry;
  });
}

/** The current FULL release's date and active rows, or undefined when none is loaded. */
export async function readCurrentRelease(sql: Sql): Promise<{ sourceFileDate: string; rows: SourceRow[] } | undefined> {
  const release = await currentRelease(sql);
  return release && { sourceFileDate: release.sourceFileDate, rows: await readSourceRows(sql, release.releaseId) };
}

async function readSourceRows(sql: Sql, releaseId: number): Promise<SourceRow[]> {
  // The FULL tables hold active records only.
  return (await releaseRecords(sql, releaseId)).map((row) => ({
    id: row.id, name: row.name, canonicalName: row.canonical_name, parentId: row.parent,
    countryCode: row.country_code, targetType: row.target_type, status: 'Active',
  }));
}

const levelOrder = { COUNTRY: 0, REGION: 1, CITY: 2 } as const;

async function writeRows(tx: Sql, rows: RegistryRow[]) {
  await tx.query('DELETE FROM legacy_registry_locations');
  // Parents before children, so each batch's foreign keys point at rows already written.
  const ordered = [...rows].sort((a, b) => levelOrder[a.level] - levelOrder[b.level]);
  for (let start = 0; start < ordered.length; start += BATCH) {
    const batch = ordered.slice(start, start + BATCH);
    const column = <T>(pick: (row: RegistryRow) => T) => batch.map(pick);
    await tx.query(
      `INSERT INTO legacy_registry_locations (location_id, name, canonical_name, country_code, target_type, level,
         parent_location_id, iso_3166_2, cldr_subdivision, provider_short, code_match)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[],
         $8::text[], $9::text[], $10::text[], $11::text[])`,
      [
        column((row) => row.id), column((row) => row.name), column((row) => row.canonicalName),
        column((row) => row.countryCode), column((row) => row.targetType), column((row) => row.level),
        column((row) => row.parentId), column((row) => row.match?.subdivision.iso ?? null),
        column((row) => row.match?.subdivision.cldr ?? null), column((row) => row.match?.subdivision.short ?? null),
        column((row) => row.match?.method ?? null),
      ],
    );
  }
}

/**
 * Rebuilds the LEGACY registry from the current FULL release, in one transaction. Called by the
 * FULL loader after each load. Idempotent: when the release, the code sources and the rules are
 * those of the stored build, nothing is written. Throws when no FULL release is current or when
 * the current release is not the one named by `sourceFileDate`.
 */
export async function buildLegacyRegistry(db: Db, sourceFileDate: string, options: BuildOptions = {}): Promise<BuildSummary> {
  const log = options.log ?? (() => {});
  const subdivisions = options.subdivisions ?? loadSubdivisions();
  return db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK_KEYS.legacyRegistryBuild]);
    const release = await currentReleaseSource(tx);
    if (!release) throw new Error('no FULL catalog release is loaded; load one before building the LEGACY registry');
    if (release.sourceFileDate !== sourceFileDate) {
      throw new Error(`the current FULL release is ${release.sourceFileDate}, not ${sourceFileDate}`);
    }
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([release.fileSha256, subdivisions.version, DERIVATION_VERSION, PROVIDER_NAME_ALIASES, CODE_NAME_OVERRIDES]))
      .digest('hex');
    const { rows: builds } = await tx.query<BuildSummary & { fingerprint: string; regions_with_codes: number }>(
      'SELECT fingerprint, source_file_date AS "sourceFileDate", countries, regions, cities, regions_with_codes FROM legacy_registry_build',
    );
    const stored = builds[0];
    if (stored && stored.fingerprint === fingerprint && !options.force) {
      log(`legacy registry: up to date with ${sourceFileDate}`);
      return { status: 'up-to-date', sourceFileDate, countries: stored.countries, regions: stored.regions, cities: stored.cities, regionsWithCodes: stored.regions_with_codes };
    }

    const rows = registryRows(await readSourceRows(tx, release.releaseId), subdivisions);
    const count = (level: RegistryRow['level']) => rows.filter((row) => row.level === level).length;
    const summary: BuildSummary = {
      status: 'built', sourceFileDate, countries: count('COUNTRY'), regions: count('REGION'), cities: count('CITY'),
      regionsWithCodes: rows.filter((row) => row.match).length,
    };
    await writeRows(tx, rows);
    await tx.query('DELETE FROM legacy_registry_build');
    await tx.query(
      `INSERT INTO legacy_registry_build (registry_version, source_file_date, fingerprint, code_sources, countries, regions, cities, regions_with_codes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [REGISTRY_VERSION, sourceFileDate, fingerprint, subdivisions.version, summary.countries, summary.regions, summary.cities, summary.regionsWithCodes],
    );
    log(`legacy registry: ${summary.countries} countries, ${summary.regions} regions (${summary.regionsWithCodes} with codes), ${summary.cities} cities from ${sourceFileDate}`);
    return summary;
  });
}
