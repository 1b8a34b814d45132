import type { FullIndex } from './memory-index.js';
import { BytePacker } from '../packed-bytes.js';

/**
 * JSON of FULL location objects, byte for byte what JSON.stringify gives for the objects of
 * queries.ts (same keys, same order, optional fields omitted). A location's JSON never changes
 * within a release, so the JSON of recently served locations, paths and path nodes is kept, the
 * first two as UTF-8 bytes: a response is then one copy of cached bytes, with nothing to
 * serialize and the bytes outside the JS heap the collector walks.
 */

/** Per-row values, dropped all at once when `limit` accumulate: bounded memory, nothing to do per hit. */
class RowCache<V> {
  private values: (V | undefined)[];
  private count = 0;
  constructor(private readonly size: number, private readonly limit: number) {
    this.values = new Array<V | undefined>(size);
  }
  get(row: number): V | undefined {
    return this.values[row];
  }
  set(row: number, value: V): V {
    if (this.count >= this.limit) {
      this.values = new Array<V | undefined>(this.size);
      this.count = 0;
    }
    this.values[row] = value;
    this.count++;
    return value;
  }
}


/** About 1 KB per location and path together: tens of MB at most, outside the JS heap. */
const CACHED_ROWS = 30_000;

interface Caches {
  nodes: RowCache<string>;
  locations: RowCache<Buffer>;
  paths: RowCache<Buffer>;
  packer: BytePacker;
  countries: string[];
  types: string[];
}
const cachesOf = new WeakMap<FullIndex, Caches>();

const json = JSON.stringify;

function caches(index: FullIndex): Caches {
  let held = cachesOf.get(index);
  if (!held) {
    held = {
      // Nodes repeat only through shared ancestors (a leaf's node serves its own location and path,
      // which are cached whole), so a quarter as many: they are strings in the JS heap.
      nodes: new RowCache(index.size, CACHED_ROWS / 4),
      locations: new RowCache(index.size, CACHED_ROWS),
      paths: new RowCache(index.size, CACHED_ROWS),
      packer: new BytePacker(),
      countries: index.countries.values.map((value) => json(value)),
      types: index.types.values.map((value) => json(value)),
    };
    cachesOf.set(index, held);
  }
  return held;
}

/** The members every node and location open with. */
function head(index: FullIndex, r: number): string {
  const { countries, types } = caches(index);
  return `{"location_id":${json(index.ids.at(r))},"name":${json(index.names.at(r))},"canonical_name":${json(index.canonicalNames.at(r))},` +
    `"country_code":${countries[index.countryOf[r]!]},"target_type":${types[index.typeOf[r]!]}`;
}

function nodeJson(index: FullIndex, r: number): string {
  const { nodes } = caches(index);
  const held = nodes.get(r);
  if (held !== undefined) return held;
  const level = index.legacyLevel(r);
  return nodes.set(r, `${head(index, r)},"hierarchy_precision":${index.depthOf[r]}${level === null ? '' : `,"legacy_level":"${level}"`}}`);
}

export function pathJson(index: FullIndex, r: number): string {
  return `[${index.pathOf(r).map((node) => nodeJson(index, node)).join(',')}]`;
}

/** self-to-root ids. */
export function locationIdsJson(index: FullIndex, r: number): string {
  const ids: string[] = [];
  for (let at = r; at >= 0; at = index.parentOf[at]!) ids.push(json(index.ids.at(at)));
  return `[${ids.join(',')}]`;
}

export function locationJson(index: FullIndex, r: number): string {
  const parent = index.parentOf[r]!;
  const sourceParent = index.sourceParentId(r);
  const level = index.legacyLevel(r);
  const unresolved = index.unresolvedParentId(r);
  return `${head(index, r)},"source_parent_location_id":${sourceParent === null ? 'null' : json(sourceParent)},` +
    `"parent_location_id":${parent < 0 ? 'null' : json(index.ids.at(parent))},"path":${pathJson(index, r)},"hierarchy_precision":${index.depthOf[r]}` +
    `${level === null ? '' : `,"legacy_level":"${level}"`},"chain_status":"${index.chainStatus(r)}"` +
    `${unresolved === null ? '' : `,"unresolved_source_parent_location_id":${json(unresolved)}`}}`;
}

/** locationJson() as UTF-8. */
export function locationBytes(index: FullIndex, r: number): Buffer {
  const { locations, packer } = caches(index);
  return locations.get(r) ?? locations.set(r, packer.bytes(locationJson(index, r)));
}

/** pathJson() as UTF-8. */
export function pathBytes(index: FullIndex, r: number): Buffer {
  const { paths, packer } = caches(index);
  return paths.get(r) ?? paths.set(r, packer.bytes(pathJson(index, r)));
}
