import { notFound } from '../../../../platform/http/errors.js';
import type { LocationContext, LocationQuery, LocationResult } from './catalog-param.js';

// The LEGACY catalog's handlers: placeholders until the location registry issue lands.
export async function search(_context: LocationContext, _query: LocationQuery): Promise<LocationResult> {
  throw notFound('the LEGACY catalog is not loaded');
}
export async function resolve(_context: LocationContext, _query: LocationQuery): Promise<LocationResult> {
  throw notFound('the LEGACY catalog is not loaded');
}
export async function lookup(_context: LocationContext, _id: string, _query: LocationQuery): Promise<LocationResult> {
  throw notFound('the LEGACY catalog is not loaded');
}
