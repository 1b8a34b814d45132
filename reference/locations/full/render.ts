import type { FullIndex } from './memory-index.js';

/**
 * JSON text of FULL location objects, byte for byte what JSON.stringify gives for the objects of
 * queries.ts (same keys, same order, optional fields omitted). Path nodes are immutable per
 * release and shared by every descendant, so each is rendered once, when first served.
 */
const nodeCache = new WeakMap<FullIndex, (string | undefined)[]>();
const tableCache = new WeakMap<FullIndex, { countries: string[]; types: string[] }>();

const json = JSON.stringify;

function tables(index: FullIndex) {
  let held = tableCache.get(index);
  if (!held) tableCache.set(index, (held = { countries: index.countries.values.map((v) => json(v)), types: index.types.values.map((v) => json(v)) }));
  return held;
}

/** `"key":value,` for the fields every node and location open with. */
function head(index: FullIndex, r: number): string {
  const { countries, types } = tables(index);
  return `{"location_id":${json(index.ids[r])},"name":${json(index.names[r])},"canonical_name":${json(index.canonicalNames[r])},` +
    `"country_code":${countries[index.countryOf[r]!]},"target_type":${types[index.typeOf[r]!]}`;
}

export function nodeJson(index: FullIndex, r: number): string {
  let cache = nodeCache.get(index);
  if (!cache) nodeCache.set(index, (cache = new Array<string | undefined>(index.size)));
  let text = cache[r];
  if (text === undefined) {
    const level = index.legacyLevel(r);
    text = `${head(index, r)},"hierarchy_precision":${index.depthOf[r]}${level === null ? '' : `,"legacy_level":"${level}"`}}`;
    cache[r] = text;
  }
  return text;
}

export function pathJson(index: FullIndex, r: number): string {
  return `[${index.pathOf(r).map((node) => nodeJson(index, node)).join(',')}]`;
}

/** self-to-root ids. */
export function locationIdsJson(index: FullIndex, r: number): string {
  const ids: string[] = [];
  for (let at = r; at >= 0; at = index.parentOf[at]!) ids.push(json(index.ids[at]));
  return `[${ids.join(',')}]`;
}

export function locationJson(index: FullIndex, r: number, path = pathJson(index, r)): string {
  const parent = index.parentOf[r]!;
  const sourceParent = index.sourceParentIds[r]!;
  const level = index.legacyLevel(r);
  const unresolved = index.unresolvedParentIds[r]!;
  return `${head(index, r)},"source_parent_location_id":${sourceParent === null ? 'null' : json(sourceParent)},` +
    `"parent_location_id":${parent < 0 ? 'null' : json(index.ids[parent])},"path":${path},"hierarchy_precision":${index.depthOf[r]}` +
    `${level === null ? '' : `,"legacy_level":"${level}"`},"chain_status":"${index.chainStatus(r)}"` +
    `${unresolved === null ? '' : `,"unresolved_source_parent_location_id":${json(unresolved)}`}}`;
}
