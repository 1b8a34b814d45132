import type { Runtime } from '../../platform/runtime.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { defaultProgress } from '../../reference/locations/full/progress.js';
import { currentRelease } from '../../reference/locations/full/queries.js';
import { CatalogFileError, missingFileMessage } from '../../reference/locations/full/source-file.js';
import { CATALOG_NOT_LOADED } from './routes/locations/catalog-not-loaded.js';

/**
 * Loads pinned reference data (the geo-target catalog from GEO_CATALOG_FILE) before the routes
 * that read it serve. Idempotent: a second start with the same file does no work. A file that
 * cannot be used (wrong sha256, header or name) stops the start with one line saying why.
 */
export async function prepareReferenceData(runtime: Runtime, log: (line: string) => void): Promise<void> {
  const file = runtime.config.geoCatalogFile;
  if (file === undefined) {
    const loaded = await currentRelease(runtime.db);
    if (loaded) log(`geo catalog: serving the FULL release of ${loaded.sourceFileDate} already in the database`);
    else log(`geo catalog: not loaded; the location routes of both catalogs answer 503 ${CATALOG_NOT_LOADED} until one is. ${missingFileMessage(undefined)}`);
    return;
  }
  try {
    await loadFullCatalog(runtime.db, { file, expectedSha256: runtime.config.geoCatalogSha256, log, progress: defaultProgress(log) });
  } catch (error) {
    if (!(error instanceof CatalogFileError)) throw error;
    // A refused start: one plain line on stderr, whatever LOG_LEVEL lets through (README, Configuration).
    process.stderr.write(`error: cannot start the API: GEO_CATALOG_FILE: ${error.message}\n`);
    process.exit(2);
  }
}
