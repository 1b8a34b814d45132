import type { Db } from '../../../../platform/db/db.js';
import { indexSnapshotsOf } from '../../../../reference/locations/index-snapshots.js';
import { externalCodes, indexLocation, RegistryIndex, type IndexedLocation, type RegistryIndexState } from '../../../../reference/locations/legacy/registry-index.js';
import { registryBuild, registryLocationsPage, type RegistryBuild, type RegistryLocationRow } from '../../../../reference/locations/legacy/queries.js';
import { stringInterner } from '../../../../reference/locations/interner.js';
import { catalogNotLoaded, catalogUnavailable } from './catalog-not-loaded.js';
import { settledWithin } from '../../../../platform/async/deadline.js';

/**
 * The registry is small (countries, first-level regions, cities) and rebuilt only when a release
 * is loaded, so each process keeps it in memory and reloads it when the stored build changes. The
 * build is looked up at most once a second (CHECK_TTL_MS; after a rebuild a process may answer
 * from the previous build for up to that long); a missing build is not remembered. The second is
 * measured on the monotonic clock: a wall clock stepped back would hold the build for the step.
 */
const CHECK_TTL_MS = 1_000;

interface Cached {
  fingerprint: string;
  index: RegistryIndex;
  checkedUntil: number;
}
const cache = new WeakMap<Db, Cached>();
const loading = new WeakMap<Db, Promise<Cached>>();

/** Rows per query: small batches of driver objects can die young instead of growing the old space. */
const BATCH = 10_000;

/** What a registry index is made from: the stored build, folded by this runtime's Unicode data. */
const snapshotKey = (build: RegistryBuild) => [build.fingerprint, build.built_at.toISOString(), process.versions.unicode];

async function load(db: Db, fingerprint: string, sourceFileDate: string): Promise<Cached> {
  const snapshots = indexSnapshotsOf(db);
  if (snapshots) {
    const build = await registryBuild(db);
    if (build?.fingerprint === fingerprint) {
      const index = await snapshots.restore('LEGACY', snapshotKey(build), (stored) => {
        const restored = RegistryIndex.restore(stored as RegistryIndexState);
        // A cheap check on top of the key and checksum: the build's size and date.
        return restored.size === build.size && restored.sourceFileDate === sourceFileDate ? restored : undefined;
      });
      if (index) return { fingerprint, index, checkedUntil: 0 };
    }
  }
  // Values that repeat on many rows (codes, types, statuses) are kept once, not once per row.
  const hold = stringInterner();
  const toLocation = (row: RegistryLocationRow) =>
    indexLocation({
      id: row.location_id, name: row.name, canonicalName: row.canonical_name, countryCode: hold(row.country_code),
      targetType: hold(row.target_type), level: hold(row.level), parentId: row.parent_location_id,
    }, externalCodes(row.iso_3166_2, row.cldr_subdivision, row.provider_short));
  // One snapshot across the batches.
  const { locations, build } = await db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const build = await registryBuild(tx);
    const found: IndexedLocation[] = [];
    for (let after = '-1'; ; ) {
      const rows = await registryLocationsPage(tx, after, BATCH);
      for (const row of rows) found.push(toLocation(row));
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.location_id;
    }
    return { locations: found, build };
  });
  const index = new RegistryIndex(locations, sourceFileDate);
  // Saved only when the rows read are those of the build asked for.
  if (snapshots && build?.fingerprint === fingerprint) snapshots.save('LEGACY', snapshotKey(build), () => index.state);
  return { fingerprint, index, checkedUntil: 0 };
}

/** How long the look at the stored build may take before a held registry is served without an answer. */
const CHECK_DEADLINE_MS = 1_000;

/** The current registry; 503 CATALOG_NOT_LOADED when none has been built, CATALOG_UNAVAILABLE when none is held and it cannot be read. */
export async function currentRegistry(db: Db): Promise<RegistryIndex> {
  const held = cache.get(db);
  if (held && held.checkedUntil > performance.now()) return held.index;
  let build: RegistryBuild | undefined;
  if (held) {
    // A registry is only replaced by a load: while the database cannot say in time (down or
    // slow), the held one is served.
    const looked = await settledWithin(registryBuild(db), CHECK_DEADLINE_MS);
    if (!looked.ok) {
      held.checkedUntil = performance.now() + CHECK_TTL_MS;
      return held.index;
    }
    build = looked.value;
  } else {
    build = await registryBuild(db).catch((error: unknown) => Promise.reject(catalogUnavailable(error)));
  }
  if (!build) throw catalogNotLoaded('LEGACY');
  if (held?.fingerprint === build.fingerprint) {
    held.checkedUntil = performance.now() + CHECK_TTL_MS;
    return held.index;
  }
  let pending = loading.get(db);
  // A load under way that failed is no answer either: this request loads again.
  if (!pending || (await pending.catch(() => undefined))?.fingerprint !== build.fingerprint) {
    pending = load(db, build.fingerprint, build.source_file_date);
    loading.set(db, pending);
  }
  try {
    const loaded = await pending;
    loaded.checkedUntil = performance.now() + CHECK_TTL_MS;
    cache.set(db, loaded);
    return loaded.index;
  } catch (error) {
    // The registry's rows could not be read (the database went away mid-load): nothing is held yet.
    throw catalogUnavailable(error);
  } finally {
    if (loading.get(db) === pending) loading.delete(db);
  }
}
