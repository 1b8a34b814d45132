import { badRequest } from '../../../../platform/http/errors.js';

/** Raw query string values; a repeated parameter arrives as an array and is rejected by the handlers. */
export type LocationQuery = Record<string, string | string[] | undefined>;

export interface LocationContext {
  db: import('../../../../platform/db/db.js').Db;
}

export interface LocationResult {
  data: Record<string, unknown>;
  extra: Record<string, unknown>;
}

export type Catalog = 'LEGACY' | 'FULL';

export function parseCatalog(query: LocationQuery): Catalog {
  const value = query.catalog;
  if (value === undefined) return 'LEGACY';
  if (value === 'LEGACY' || value === 'FULL') return value;
  throw badRequest(`catalog must be LEGACY or FULL, got ${JSON.stringify(value)}`);
}
