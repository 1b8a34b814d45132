import { badRequest } from '../../../../platform/http/errors.js';
import { single } from './params.js';

/** Raw query string values; a repeated parameter arrives as an array and is rejected by the handlers. */
export type LocationQuery = Record<string, string | string[] | undefined>;

export interface LocationContext {
  db: import('../../../../platform/db/db.js').Db;
}

/**
 * A response body assembled from JSON text and cached UTF-8 fragments, in order: the handlers
 * write the success envelope `{"code":"SUCCESS","message":"","data":…,"extra":…}` this way, the
 * same bytes JSON.stringify(success(data, extra)) gives, without building the objects first.
 */
export function joinBytes(parts: readonly (string | Buffer)[]): Buffer {
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}

export type Catalog = 'LEGACY' | 'FULL';

export function parseCatalog(query: LocationQuery): Catalog {
  const value = single(query, 'catalog');
  if (value === undefined) return 'LEGACY';
  if (value === 'LEGACY' || value === 'FULL') return value;
  throw badRequest(`catalog must be LEGACY or FULL, got ${JSON.stringify(value)}`);
}
