import type { IndexedLocation, RegistryIndex } from '../../../../reference/locations/legacy/registry-index.js';
import { REGISTRY_VERSION } from '../../../../reference/locations/legacy/source-row.js';
import { BytePacker } from '../../../../reference/locations/packed-bytes.js';

/** A LEGACY path node: id, name and level only. */
function pathNode(location: IndexedLocation) {
  return { location_id: location.id, name: location.name, level: location.level };
}

/** The LEGACY Location object; `external_codes` only when the location has any. */
function renderLocation(index: RegistryIndex, location: IndexedLocation) {
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

/**
 * renderLocation() as JSON in UTF-8, rendered once per location (the registry is small, a build
 * never changes, and locations belong to exactly one build): responses copy these bytes, which
 * are packed into large chunks per build (packed-bytes.ts).
 */
const rendered = new WeakMap<IndexedLocation, Buffer>();
const packers = new WeakMap<RegistryIndex, BytePacker>();
export function locationBytes(index: RegistryIndex, location: IndexedLocation): Buffer {
  let bytes = rendered.get(location);
  if (bytes === undefined) {
    let packer = packers.get(index);
    if (packer === undefined) packers.set(index, (packer = new BytePacker()));
    rendered.set(location, (bytes = packer.bytes(JSON.stringify(renderLocation(index, location)))));
  }
  return bytes;
}

/** Catalog-level fields of every LEGACY `data` as JSON members: no `catalog`, no `catalog_version`. */
export function catalogFields(index: RegistryIndex): string {
  return `"registry_version":${JSON.stringify(REGISTRY_VERSION)},"source_file_date":${JSON.stringify(index.sourceFileDate)}`;
}

/** `location`, `path` and the self-to-root `location_ids` of one location, as JSON members. */
export function locationWithChain(index: RegistryIndex, location: IndexedLocation): (string | Buffer)[] {
  const path = index.pathOf(location);
  return ['"location":', locationBytes(index, location), `,"path":${JSON.stringify(path.map(pathNode))},` +
    `"location_ids":${JSON.stringify(path.map((node) => node.id).reverse())}`];
}
