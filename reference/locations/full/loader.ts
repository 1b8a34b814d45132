import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Db, Sql } from '../../../platform/db/db.js';
import { buildLegacyRegistry } from '../legacy/build.js';
import { buildCatalogRows, type CatalogRow } from './catalog-rows.js';
import { logProgress, type Progress } from './progress.js';
import { assertFileExists, CatalogFileError, readSourceRows, sha256OfFile, sourceFileDateOf, type SourceRow } from './source-file.js';
import { ADVISORY_LOCK_KEYS } from '../../../platform/db/advisory-locks.js';

const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

export interface LoadOptions {
  file: string;
  /** When set, a file whose sha256 differs is refused before anything is written. */
  expectedSha256?: string;
  /** Loads a release with under half the current one's active locations (refused otherwise). */
  allowShrink?: boolean;
  log?: (line: string) => void;
  progress?: Progress;
  /** Called once the release is committed as the current FULL catalog, before the LEGACY registry is rebuilt from it. */
  onCommitted?: () => void;
}

export interface LoadResult {
  status: 'loaded' | 'already-loaded';
  releaseId: number;
  sourceFileDate: string;
  sha256: string;
  sourceRows: number;
  activeRows: number;
  seconds: number;
}

const BATCH = 5_000;

interface ReleaseRow {
  release_id: number;
  source_file_date: string;
  file_name: string;
  file_sha256: string;
  source_rows: number;
  active_rows: number;
}

async function currentRelease(sql: Sql): Promise<ReleaseRow | undefined> {
  const { rows } = await sql.query<ReleaseRow>(
    'SELECT release_id, source_file_date, file_name, file_sha256, source_rows, active_rows FROM geo_full_releases WHERE is_current',
  );
  return rows[0];
}

/**
 * Loads a geo-target release into the FULL tables and makes it current, in one transaction.
 * Idempotent: when the current release has the same sha256, nothing is read or written.
 * Throws CatalogFileError for a missing, misnamed, mismatching or malformed file.
 */
export async function loadFullCatalog(db: Db, options: LoadOptions): Promise<LoadResult> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const progress = options.progress ?? logProgress(log);
  const { file } = options;
  assertFileExists(file);
  const sourceFileDate = sourceFileDateOf(file);
  // Each step that takes seconds on a full release says so before it starts (long jobs show progress).
  log(`geo catalog: reading ${basename(file)} (${megabytes(statSync(file).size)}) for its sha256`);
  const sha256 = await sha256OfFile(file);
  if (options.expectedSha256 && options.expectedSha256.toLowerCase() !== sha256) {
    throw new CatalogFileError(
      `Refusing "${basename(file)}": its sha256 is ${sha256}, but GEO_CATALOG_SHA256 expects ${options.expectedSha256.toLowerCase()}. ` +
        'Use the pinned release file, or correct GEO_CATALOG_SHA256.',
    );
  }
  const seconds = () => (performance.now() - started) / 1000;
  const existing = await currentRelease(db);
  if (existing?.file_sha256 === sha256) {
    refuseRedated(file, sourceFileDate, existing);
    log(`geo catalog: ${basename(file)} (${sourceFileDate}) is already loaded; nothing to load (the LEGACY registry is rebuilt from it only if it lags)`);
    // The LEGACY registry is derived from the current release; a no-op when already built from it.
    await buildLegacyRegistry(db, sourceFileDate, { log });
    return { status: 'already-loaded', releaseId: existing.release_id, sourceFileDate, sha256, sourceRows: existing.source_rows, activeRows: existing.active_rows, seconds: seconds() };
  }

  log(`geo catalog: loading ${basename(file)} (sha256 ${sha256})`);
  const source = await readAll(file, progress);
  const rows = buildCatalogRows(source);
  refuseShrinking(file, rows.length, existing, options.allowShrink === true);

  const releaseId = await db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK_KEYS.fullCatalogLoad]);
    const now = await currentRelease(tx);
    if (now?.file_sha256 === sha256) return undefined;
    const { rows: inserted } = await tx.query<{ release_id: number }>(
      `INSERT INTO geo_full_releases (source_file_date, file_name, file_sha256, source_rows, active_rows, cursor_secret)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING release_id`,
      [sourceFileDate, basename(file), sha256, source.length, rows.length, randomBytes(32).toString('hex')],
    );
    const id = inserted[0]!.release_id;
    await insertLocations(tx, id, rows, progress);
    await tx.query('UPDATE geo_full_releases SET is_current = false WHERE is_current');
    await tx.query('UPDATE geo_full_releases SET is_current = true WHERE release_id = $1', [id]);
    await tx.query('DELETE FROM geo_full_locations WHERE release_id <> $1', [id]);
    return id;
  });
  if (releaseId === undefined) {
    const loaded = (await currentRelease(db))!;
    refuseRedated(file, sourceFileDate, loaded);
    log(`geo catalog: ${basename(file)} was loaded by another process meanwhile`);
    await buildLegacyRegistry(db, sourceFileDate, { log });
    return { status: 'already-loaded', releaseId: loaded.release_id, sourceFileDate, sha256, sourceRows: loaded.source_rows, activeRows: loaded.active_rows, seconds: seconds() };
  }
  options.onCommitted?.();
  log(`geo catalog: ${rows.length} locations written; updating statistics and building the LEGACY registry`);
  // Fresh statistics so the planner picks the ordered index scans the search relies on.
  await db.exec('ANALYZE geo_full_releases; ANALYZE geo_full_locations;');
  await buildLegacyRegistry(db, sourceFileDate, { log });
  log(`geo catalog: loaded ${rows.length} active of ${source.length} rows (${sourceFileDate}) in ${seconds().toFixed(1)} s`);
  return { status: 'loaded', releaseId, sourceFileDate, sha256, sourceRows: source.length, activeRows: rows.length, seconds: seconds() };
}

/**
 * The bytes of the current release under a name of another date: the served source_file_date
 * comes from the name it was loaded under, and the LEGACY build refuses a date that is not the
 * current release's, so "already loaded" would be untrue and a rerun would fail the same way.
 */
function refuseRedated(file: string, sourceFileDate: string, current: ReleaseRow) {
  if (current.source_file_date === sourceFileDate) return;
  throw new CatalogFileError(
    `Refusing "${basename(file)}": its bytes are those of the current release, loaded from "${current.file_name}" as ${current.source_file_date}, ` +
      `but its name says ${sourceFileDate}. The release date is read from the file name: give the file its release's name (as Google publishes it); nothing was loaded`,
  );
}

/** A release with less than this share of the current one's active locations is refused without --allow-shrink. */
const LEAST_SHARE_OF_CURRENT = 0.5;

/**
 * An empty release, or one with far fewer active locations than the current one (a file cut short
 * by a failed copy still parses when the cut falls between lines), would replace the catalog every
 * location route answers from: refused before anything is written.
 */
function refuseShrinking(file: string, activeRows: number, current: ReleaseRow | undefined, allowShrink: boolean) {
  if (activeRows === 0) throw new CatalogFileError(`Refusing "${basename(file)}": it holds no active location (is it cut short?); nothing was loaded`);
  if (!current || allowShrink || activeRows >= current.active_rows * LEAST_SHARE_OF_CURRENT) return;
  throw new CatalogFileError(
    `Refusing "${basename(file)}": it holds ${activeRows} active locations, under half of the ${current.active_rows} of the current release (${current.source_file_date}); ` +
      'a file cut short looks like this. Check the file; to load a smaller catalog on purpose, run `npm run geo:load -- <file> --allow-shrink`. Nothing was loaded',
  );
}

async function readAll(file: string, progress: Progress): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  let phaseStarted = false;
  for await (const row of readSourceRows(file, (done, total) => {
    if (!phaseStarted) {
      progress.phase('reading file', total);
      phaseStarted = true;
    }
    progress.update(done);
  })) {
    rows.push(row);
  }
  progress.done();
  return rows;
}

async function insertLocations(tx: Sql, releaseId: number, rows: CatalogRow[], progress: Progress) {
  progress.phase('writing locations', rows.length);
  for (let start = 0; start < rows.length; start += BATCH) {
    const batch = rows.slice(start, start + BATCH);
    const column = <T>(pick: (row: CatalogRow) => T) => batch.map(pick);
    await tx.query(
      `INSERT INTO geo_full_locations (release_id, location_id, name, canonical_name, country_code, target_type,
         source_parent_location_id, parent_location_id, chain_status, unresolved_source_parent_location_id,
         hierarchy_precision, path_ids, type_bucket, name_norm, text_norm)
       SELECT $1, u.location_id, u.name, u.canonical_name, u.country_code, u.target_type, u.source_parent,
         u.parent, u.chain_status, u.unresolved, u.precision, u.path_text::bigint[], u.type_bucket,
         u.name_norm, u.text_norm
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[],
         $10::text[], $11::smallint[], $12::text[], $13::smallint[], $14::text[], $15::text[])
       AS u(location_id, name, canonical_name, country_code, target_type, source_parent, parent, chain_status,
         unresolved, precision, path_text, type_bucket, name_norm, text_norm)`,
      [
        releaseId,
        column((row) => row.locationId),
        column((row) => row.name),
        column((row) => row.canonicalName),
        column((row) => row.countryCode),
        column((row) => row.targetType),
        column((row) => row.sourceParentId),
        column((row) => row.parentId),
        column((row) => row.chainStatus),
        column((row) => row.unresolvedParentId),
        column((row) => row.precision),
        column((row) => `{${row.pathIds.join(',')}}`),
        column((row) => row.typeBucket),
        column((row) => row.nameNorm),
        column((row) => row.textNorm),
      ],
    );
    progress.update(Math.min(rows.length, start + BATCH));
  }
  progress.done();
}
