import { serviceUnavailable } from '../../../../platform/http/errors.js';
import { HOW_TO_LOAD } from '../../../../reference/locations/how-to-load.js';
import type { Catalog } from './catalog-param.js';

/** The code both catalogs answer before a release is loaded (LEGACY is built from that release). */
export const CATALOG_NOT_LOADED = 'CATALOG_NOT_LOADED';

const WHAT_IS_MISSING: Record<Catalog, string> = {
  FULL: 'The FULL location catalog is not loaded',
  LEGACY: 'The LEGACY location registry is not built (it is derived from the loaded geo-target release)',
};

/** 503 CATALOG_NOT_LOADED, saying how to load one. */
export const catalogNotLoaded = (catalog: Catalog) => serviceUnavailable(CATALOG_NOT_LOADED, `${WHAT_IS_MISSING[catalog]}; ${HOW_TO_LOAD}.`);

/**
 * 503 CATALOG_UNAVAILABLE: the stored catalog cannot be read right now (the database is down or
 * slow) and this process holds no copy to answer from; retry later. The cause goes to the log.
 */
export function catalogUnavailable(cause: unknown) {
  const error = serviceUnavailable('CATALOG_UNAVAILABLE', 'The location catalog cannot be read right now; retry later.');
  error.cause = cause;
  return error;
}
