import type { Runtime } from '../../../../platform/runtime.js';
import { fullReaderFor } from '../../../../reference/locations/full/reader.js';
import { currentRegistry } from './legacy-registry.js';

/**
 * Builds the in-memory FULL index and LEGACY registry of what is loaded now, returning how long
 * each took (ms). Nothing loaded yet, or a database that cannot answer, is not an error here: the
 * routes build on first use and answer 503 while nothing is loaded.
 */
export async function warmLocationIndexes(runtime: Runtime, log: (line: string) => void): Promise<{ fullMs?: number; legacyMs?: number }> {
  const timings: { fullMs?: number; legacyMs?: number } = {};
  try {
    let started = performance.now();
    const index = await fullReaderFor(runtime.db).current();
    if (index) {
      timings.fullMs = performance.now() - started;
      log(`geo catalog: FULL index of ${index.release.sourceFileDate} (${index.size} locations) built in ${(timings.fullMs / 1000).toFixed(1)} s`);
      started = performance.now();
      await currentRegistry(runtime.db);
      timings.legacyMs = performance.now() - started;
    }
  } catch (error) {
    log(`geo catalog: location indexes not built at start (${error instanceof Error ? error.message : String(error)}); they are built on first use`);
  }
  return timings;
}
