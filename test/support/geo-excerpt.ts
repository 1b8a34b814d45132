import { fileURLToPath } from 'node:url';

/** The real geo-target excerpt, read in place from the shared data folder beside the project (never copied in). */
export const GEO_EXCERPT_FILE = fileURLToPath(new URL('../../../shared/data/geo/geotargets-2025-07-15-excerpt.csv', import.meta.url));
