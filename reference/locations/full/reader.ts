import type { Db } from '../../../platform/db/db.js';
import { settledWithin } from '../../../platform/async/deadline.js';
import { indexSnapshotsOf, type IndexSnapshots } from '../index-snapshots.js';
import { FullIndex, type FullIndexColumns, type FullIndexState } from './memory-index.js';
import type { CurrentRelease, StoredLocationRow } from './queries.js';
import { stringInterner } from '../interner.js';
import { legacyBuildJoin, legacyLevelJoin } from '../legacy/queries.js';

/**
 * The API's FULL catalog: the current release held in memory (memory-index.ts), one copy per
 * process. A release never changes once loaded, so the only question per request is whether it
 * is still current; that is re-read at most once a second (RELEASE_TTL_MS), together with the
 * LEGACY build fingerprint (the source of `legacy_level`). When either changes, the new index is
 * built from one consistent snapshot while the previous one keeps serving; a process may answer
 * from the previous release until then, never from a mix. A missing release is not cached, so
 * the routes serve as soon as a load commits.
 */
const RELEASE_TTL_MS = 1_000;
/** How long that look may take before the held index is served without an answer. */
const CHECK_DEADLINE_MS = 1_000;
/** How long the request that finds a new release waits for its index before being answered from the one held. */
const NEW_RELEASE_WAIT_MS = 300;
/**
 * Rows per query. A batch's driver objects (a row object and a string per field) live until the
 * batch is copied into columns; a batch of a few MB can die in the young generation, where one of
 * 50k rows (tens of MB) was promoted to the old space and stayed there as garbage.
 */
const BATCH = 10_000;

interface State {
  release: CurrentRelease;
  legacyFingerprint: string | null;
  activeRows: number;
  /** What an index of this state is built from: the key of its snapshot. */
  snapshotKey: unknown[];
}

const stateQuery = `SELECT r.release_id, r.source_file_date, r.cursor_secret, r.file_sha256, r.loaded_at, r.active_rows,
    b.legacy_fingerprint, b.legacy_built_at
  FROM geo_full_releases r ${legacyBuildJoin('b')} WHERE r.is_current`;

interface StateRow {
  release_id: number;
  source_file_date: string;
  cursor_secret: string;
  file_sha256: string;
  loaded_at: Date;
  active_rows: number;
  legacy_fingerprint: string | null;
  legacy_built_at: Date | null;
}

const toState = (row: StateRow | undefined): State | undefined =>
  row && {
    release: { releaseId: row.release_id, sourceFileDate: row.source_file_date, cursorSecret: row.cursor_secret },
    legacyFingerprint: row.legacy_fingerprint,
    activeRows: row.active_rows,
    // The release file, its load in this database (a reload of the same file is another load),
    // and the LEGACY build that labels legacy_level.
    snapshotKey: [row.file_sha256, row.release_id, row.loaded_at.toISOString(), row.legacy_fingerprint, row.legacy_built_at?.toISOString() ?? null],
  };

interface IndexedLocationRow extends StoredLocationRow {
  type_bucket: number;
  name_norm: string;
  text_norm: string;
}

/**
 * The index of the current release (with LEGACY levels); undefined when none is loaded. Loaded
 * from its snapshot when `snapshots` holds one for this release and LEGACY build; otherwise read
 * in one database snapshot, indexed, and saved to `snapshots` for the next start.
 */
export async function loadFullIndex(db: Db, snapshots: IndexSnapshots | undefined = indexSnapshotsOf(db)): Promise<FullIndex | undefined> {
  if (snapshots) {
    const started = performance.now();
    const state = toState((await db.query<StateRow>(stateQuery)).rows[0]);
    if (!state) return undefined;
    const restored = await snapshots.restore('FULL', state.snapshotKey, (stored) => {
      const index = new FullIndex(stored as FullIndexState, state.release, state.legacyFingerprint);
      // A cheap check on top of the key and checksum: the release's row count.
      return index.size === state.activeRows ? index : undefined;
    });
    if (restored) {
      restored.timings = { readMs: performance.now() - started, indexMs: 0, restored: true };
      return restored;
    }
  }
  const built = await buildFullIndex(db);
  if (built && snapshots) snapshots.save('FULL', built.snapshotKey, () => built.index.state);
  return built?.index;
}

/** Reads the current release (and LEGACY levels) in one snapshot and indexes it. */
async function buildFullIndex(db: Db): Promise<{ index: FullIndex; snapshotKey: unknown[] } | undefined> {
  const started = performance.now();
  const read = await db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const state = toState((await tx.query<StateRow>(stateQuery)).rows[0]);
    if (!state) return undefined;
    // Columns sized for the release up front: grown by push, they allocated three times their size.
    const expected = state.activeRows;
    const column = <T>() => new Array<T>(expected);
    const columns: FullIndexColumns = {
      locationId: column(), name: column(), canonicalName: column(), countryCode: column(), targetType: column(),
      sourceParentId: column(), parentId: column(), chainStatus: column(), unresolvedParentId: column(), typeBucket: column(),
      nameNorm: column(), textNorm: column(), legacyLevel: column(),
    };
    let k = 0;
    // Values that repeat on many rows (codes, types, statuses) are kept once, not once per row.
    const hold = stringInterner();
    for (let after = '-1'; ; ) {
      const { rows: batch } = await tx.query<IndexedLocationRow>(
        `SELECT l.location_id, l.name, l.canonical_name, l.country_code, l.target_type, l.source_parent_location_id,
                l.parent_location_id, l.chain_status, l.unresolved_source_parent_location_id, l.type_bucket,
                l.name_norm, l.text_norm, g.legacy_level
           FROM geo_full_locations l ${legacyLevelJoin('g', 'l.location_id')}
          WHERE l.release_id = $1 AND l.location_id > $2
          ORDER BY l.location_id LIMIT ${BATCH}`,
        [state.release.releaseId, after],
      );
      for (const row of batch) {
        const parentId = row.parent_location_id;
        columns.locationId[k] = row.location_id;
        columns.name[k] = row.name;
        columns.canonicalName[k] = row.canonical_name;
        columns.countryCode[k] = hold(row.country_code);
        columns.targetType[k] = hold(row.target_type);
        // Mostly the verified parent's id: one string for both.
        columns.sourceParentId[k] = row.source_parent_location_id === parentId ? parentId : row.source_parent_location_id;
        columns.parentId[k] = parentId;
        columns.chainStatus[k] = hold(row.chain_status);
        columns.unresolvedParentId[k] = row.unresolved_source_parent_location_id;
        columns.typeBucket[k] = row.type_bucket;
        columns.nameNorm[k] = row.name_norm;
        columns.textNorm[k] = row.text_norm;
        columns.legacyLevel[k] = row.legacy_level === null ? null : hold(row.legacy_level);
        k++;
      }
      if (batch.length < BATCH) break;
      after = batch[batch.length - 1]!.location_id;
    }
    for (const values of Object.values(columns)) values.length = k;
    return { state, columns };
  });
  if (!read) return undefined;
  const readMs = performance.now() - started;
  const index = new FullIndex(read.columns, read.state.release, read.state.legacyFingerprint);
  index.timings = { readMs, indexMs: performance.now() - started - readMs, restored: false };
  return { index, snapshotKey: read.state.snapshotKey };
}

export interface FullReader {
  /** The index of the current release, undefined when none is loaded. `fresh`: look again now, and wait for a new build. */
  current(options?: { fresh?: boolean }): Promise<FullIndex | undefined>;
}

const sameState = (index: FullIndex | undefined, state: State) =>
  index !== undefined && index.release.releaseId === state.release.releaseId && index.legacyFingerprint === state.legacyFingerprint;

export interface FullReaderOptions {
  log?: (line: string) => void;
  /** The clock the once-a-second look goes by: monotonic, so a wall clock stepped back does not hold a release for the length of the step. */
  now?: () => number;
  newReleaseWaitMs?: number;
}

export function createFullReader(db: Db, { log = () => {}, now = () => performance.now(), newReleaseWaitMs = NEW_RELEASE_WAIT_MS }: FullReaderOptions = {}): FullReader {
  let index: FullIndex | undefined;
  let checkedUntil = 0;
  let checking: Promise<State | undefined> | undefined;
  let building: Promise<FullIndex | undefined> | undefined;

  const check = () =>
    (checking ??= db
      .query<StateRow>(stateQuery)
      .then(({ rows }) => toState(rows[0]))
      .finally(() => (checking = undefined)));

  const build = () =>
    (building ??= (async () => {
      const started = performance.now();
      const built = await loadFullIndex(db);
      if (built) log(`geo catalog: FULL index of ${built.release.sourceFileDate} ${built.timings.restored ? 'loaded' : 'built'} in memory (${built.size} locations) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      index = built;
      checkedUntil = now() + RELEASE_TTL_MS;
      return built;
    })().finally(() => (building = undefined)));

  return {
    async current({ fresh = false } = {}) {
      if (!fresh && index && checkedUntil > now()) return index;
      let state: State | undefined;
      if (!fresh && index) {
        // A release is only replaced by a load: while the database cannot say in time (down or
        // slow), the held one is served.
        const looked = await settledWithin(check(), CHECK_DEADLINE_MS);
        if (!looked.ok) {
          log(`geo catalog: cannot tell whether the FULL release changed (${looked.why}); serving the one held`);
          checkedUntil = now() + RELEASE_TTL_MS;
          return index;
        }
        state = looked.value;
      } else {
        state = await check();
      }
      if (!state) {
        index = undefined;
        return undefined;
      }
      if (sameState(index, state)) {
        checkedUntil = now() + RELEASE_TTL_MS;
        return index;
      }
      const pending = build();
      // The previous release keeps serving while the new one is indexed, unless asked for the
      // newest; a build quick enough (a small catalog, a restored snapshot) answers this request already.
      if (index && !fresh) {
        const held = index;
        checkedUntil = now() + RELEASE_TTL_MS;
        // A failed build is retried by the next check; the serving index stays.
        pending.catch((error: unknown) => log(`geo catalog: FULL index build failed: ${String(error)}`));
        const built = await settledWithin(pending, newReleaseWaitMs);
        return built.ok && built.value ? built.value : held;
      }
      return pending;
    },
  };
}

const readers = new WeakMap<Db, FullReader>();
/** One reader (and index) per database handle. */
export function fullReaderFor(db: Db): FullReader {
  let reader = readers.get(db);
  if (!reader) readers.set(db, (reader = createFullReader(db)));
  return reader;
}
