import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The team's shared folder (reference, design, data): beside the project, or where SHARED_DIR says. */
export const SHARED_DIR = process.env.SHARED_DIR || fileURLToPath(new URL('../../../shared', import.meta.url));

/** The real geo-target excerpt, read in place from the shared data folder (never copied in). */
export const GEO_EXCERPT_FILE = join(SHARED_DIR, 'data/geo/geotargets-2025-07-15-excerpt.csv');
