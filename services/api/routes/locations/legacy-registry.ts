import type { Db } from '../../../../platform/db/db.js';
import { indexLocation, RegistryIndex, type IndexedLocation } from '../../../../reference/locations/legacy/registry-index.js';
import type { ExternalCodes, Level } from '../../../../reference/locations/legacy/source-row.js';
import { stringInterner } from '../../../../reference/locations/interner.js';
import { catalogNotLoaded } from './catalog-not-loaded.js';

/**
 * The registry is small (countries, first-level regions, cities) and rebuilt only when a release
 * is loaded, so each process keeps it in memory and reloads it when the stored build changes. The
 * build is looked up at most once a second (CHECK_TTL_MS; after a rebuild a process may answer
 * from the previous build for up to that long); a missing build is not remembered.
 */
const CHECK_TTL_MS = 1_000;

interface Cached {
  fingerprint: string;
  index: RegistryIndex;
  checkedUntil: number;
}
const cache = new WeakMap<Db, Cached>();
/** Most locations (every city) have no external codes: they share one empty, frozen object. */
const NO_CODES: ExternalCodes = Object.freeze({});
const loading = new WeakMap<Db, Promise<Cached>>();

interface Row {
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

/** Rows per query: small batches of driver objects can die young instead of growing the old space. */
const BATCH = 10_000;

async function load(db: Db, fingerprint: string, sourceFileDate: string): Promise<Cached> {
  // Values that repeat on many rows (codes, types, statuses) are kept once, not once per row.
  const hold = stringInterner();
  const toLocation = (row: Row) => {
    let codes = NO_CODES;
    if (row.iso_3166_2 || row.cldr_subdivision || row.provider_short) {
      codes = {};
      if (row.iso_3166_2) codes.iso_3166_2 = row.iso_3166_2;
      if (row.cldr_subdivision) codes.cldr_subdivision = row.cldr_subdivision;
      if (row.provider_short) codes.provider_short = row.provider_short;
    }
    return indexLocation({
      id: row.location_id, name: row.name, canonicalName: row.canonical_name, countryCode: hold(row.country_code),
      targetType: hold(row.target_type), level: hold(row.level), parentId: row.parent_location_id,
    }, codes);
  };
  // One snapshot across the batches.
  const locations = await db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const found: IndexedLocation[] = [];
    for (let after = '-1'; ; ) {
      const { rows } = await tx.query<Row>(
        `SELECT location_id, name, canonical_name, country_code, target_type, level, parent_location_id,
                iso_3166_2, cldr_subdivision, provider_short
           FROM legacy_registry_locations WHERE location_id > $1 ORDER BY location_id LIMIT ${BATCH}`,
        [after],
      );
      for (const row of rows) found.push(toLocation(row));
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.location_id;
    }
    return found;
  });
  return { fingerprint, index: new RegistryIndex(locations, sourceFileDate), checkedUntil: 0 };
}

/** The current registry; 503 CATALOG_NOT_LOADED when none has been built. */
export async function currentRegistry(db: Db): Promise<RegistryIndex> {
  const held = cache.get(db);
  if (held && held.checkedUntil > Date.now()) return held.index;
  const { rows } = await db.query<{ fingerprint: string; source_file_date: string }>(
    'SELECT fingerprint, source_file_date FROM legacy_registry_build',
  );
  const build = rows[0];
  if (!build) throw catalogNotLoaded('LEGACY');
  if (held?.fingerprint === build.fingerprint) {
    held.checkedUntil = Date.now() + CHECK_TTL_MS;
    return held.index;
  }
  let pending = loading.get(db);
  if (!pending || (await pending).fingerprint !== build.fingerprint) {
    pending = load(db, build.fingerprint, build.source_file_date);
    loading.set(db, pending);
  }
  try {
    const loaded = await pending;
    loaded.checkedUntil = Date.now() + CHECK_TTL_MS;
    cache.set(db, loaded);
    return loaded.index;
  } finally {
    if (loading.get(db) === pending) loading.delete(db);
  }
}
