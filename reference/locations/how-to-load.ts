/**
 * How a geo-target release gets loaded, in the one form the README, the loader, the start-up log
 * and the routes' 503 answer all use.
 */
export const GEO_LOAD_COMMAND = 'npm run geo:load -- <file>';

export const HOW_TO_LOAD =
  `load a geo-target release with \`${GEO_LOAD_COMMAND}\` (on the embedded default with the service stopped: ` +
  'it owns DATA_DIR) or start the service with GEO_CATALOG_FILE=<file> (`npm run geo:download` fetches the pinned release)';
