import { badRequest } from '../../../../platform/http/errors.js';

/** Raw query string values; a repeated parameter arrives as an array and is rejected by the handlers. */
export type LocationQuery = Record<string, string | string[] | undefined>;

export interface LocationContext {
  db: import('../../../../platform/db/db.js').Db;
}

/**
 * The success envelope as JSON text from the JSON of `data` and `extra`: the same bytes
 * JSON.stringify(success(data, extra)) gives, without building the objects first.
 */
export const successJson = (data: string, extra: string) => `{"code":"SUCCESS","message":"","data":${data},"extra":${extra}}`;

export type Catalog = 'LEGACY' | 'FULL';

export function parseCatalog(query: LocationQuery): Catalog {
  const value = query.catalog;
  if (value === undefined) return 'LEGACY';
  if (value === 'LEGACY' || value === 'FULL') return value;
  throw badRequest(`catalog must be LEGACY or FULL, got ${JSON.stringify(value)}`);
}
