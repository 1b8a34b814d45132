import type { IndexedLocation, RegistryIndex } from '../../../../reference/locations/legacy/registry-index.js';
import { REGISTRY_VERSION } from '../../../../reference/locations/legacy/source-row.js';

/** A LEGACY path node: id, name and level only. */
export function pathNode(location: IndexedLocation) {
  return { location_id: location.id, name: location.name, level: location.level };
}

/** The LEGACY Location object; `external_codes` only when the location has any. */
export function renderLocation(index: RegistryIndex, location: IndexedLocation) {
  const hasCodes = Object.keys(location.codes).length > 0;
  return {
    location_id: location.id,
    name: location.name,
    canonical_name: location.canonicalName,
    country_code: location.countryCode,
    target_type: location.targetType,
    level: location.level,
    parent_location_id: location.parentId,
    path: index.pathOf(location).map(pathNode),
    ...(hasCodes ? { external_codes: { ...location.codes } } : {}),
  };
}

/** Catalog-level fields of every LEGACY `data`: no `catalog`, no `catalog_version`. */
export function catalogFields(index: RegistryIndex) {
  return { registry_version: REGISTRY_VERSION, source_file_date: index.sourceFileDate };
}

/** `location`, `path` and the self-to-root `location_ids` of one location. */
export function locationWithChain(index: RegistryIndex, location: IndexedLocation) {
  const rendered = renderLocation(index, location);
  return {
    location: rendered,
    path: rendered.path,
    location_ids: index.pathOf(location).map((node) => node.id).reverse(),
  };
}
