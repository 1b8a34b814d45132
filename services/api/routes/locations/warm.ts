import { join } from 'node:path';
import type { Config } from '../../../../platform/config/config.js';
import type { Runtime } from '../../../../platform/runtime.js';
import { indexSnapshots, useIndexSnapshots } from '../../../../reference/locations/index-snapshots.js';
import { fullReaderFor } from '../../../../reference/locations/full/reader.js';
import { currentRegistry } from './legacy-registry.js';

/**
 * Where built indexes are kept between starts (README of reference/locations/full): GEO_INDEX_CACHE_DIR,
 * else DATA_DIR/geo-index on the embedded default; with DATABASE_URL only when configured (the
 * process may have no writable folder of its own).
 */
function indexSnapshotFolder(config: Pick<Config, 'geoIndexCacheDir' | 'dataDir' | 'embedded'>): string | undefined {
  if (config.geoIndexCacheDir === 'off') return undefined;
  return config.geoIndexCacheDir ?? (config.embedded.database ? join(config.dataDir, 'geo-index') : undefined);
}

/**
 * Builds (or loads from their snapshots) the in-memory FULL index and LEGACY registry of what is
 * loaded now, both at once, returning how long each took (ms). Nothing loaded yet, or a database
 * that cannot answer, is not an error here: the routes build on first use and answer 503 while
 * nothing is loaded.
 */
export async function warmLocationIndexes(runtime: Runtime, log: (line: string) => void): Promise<{ fullMs?: number; legacyMs?: number }> {
  const folder = indexSnapshotFolder(runtime.config);
  useIndexSnapshots(runtime.db, folder === undefined ? undefined : indexSnapshots(folder, log));
  const timings: { fullMs?: number; legacyMs?: number } = {};
  const started = performance.now();
  const [full, legacy] = await Promise.allSettled([
    fullReaderFor(runtime.db).current().then((index) => {
      if (index) timings.fullMs = performance.now() - started;
      return index;
    }),
    currentRegistry(runtime.db).then(() => {
      timings.legacyMs = performance.now() - started;
    }),
  ]);
  if (full.status === 'fulfilled' && full.value) {
    log(`geo catalog: FULL index of ${full.value.release.sourceFileDate} (${full.value.size} locations) ${full.value.timings.restored ? 'loaded' : 'built'} in ${(timings.fullMs! / 1000).toFixed(1)} s`);
  }
  // Without a FULL release there is no LEGACY registry either: nothing to say.
  const failed = full.status === 'rejected' ? full.reason : full.value && legacy.status === 'rejected' ? legacy.reason : undefined;
  if (failed !== undefined) {
    log(`geo catalog: location indexes not built at start (${failed instanceof Error ? failed.message : String(failed)}); they are built on first use`);
  }
  return timings;
}
