import { computeChains, type ChainStatus } from './chains.js';
import { searchHaystack, normalizeSearchText } from './search-text.js';
import { CatalogFileError, type SourceRow } from './source-file.js';
import { typeBucket } from './type-buckets.js';

/** One row of geo_full_locations, before it has a release. */
export interface CatalogRow {
  locationId: string;
  name: string;
  canonicalName: string;
  countryCode: string;
  targetType: string;
  sourceParentId: string | null;
  parentId: string | null;
  chainStatus: ChainStatus;
  unresolvedParentId: string | null;
  precision: number;
  pathIds: string[];
  typeBucket: number;
  nameNorm: string;
  textNorm: string;
}

const isActive = (row: SourceRow) => row.status === 'Active';

/** Turns the source rows of a release into catalog rows (active records only). Pure. */
export function buildCatalogRows(source: readonly SourceRow[]): CatalogRow[] {
  const byId = new Map<string, SourceRow>();
  for (const row of source) {
    if (byId.has(row.id)) throw new CatalogFileError(`Criteria ID ${row.id} appears more than once.`);
    byId.set(row.id, row);
  }
  const chains = computeChains(source.map((row) => ({ id: row.id, parentId: row.parentId, active: isActive(row) })));
  return chains.map((chain) => {
    const row = byId.get(chain.id)!;
    return {
      locationId: row.id,
      name: row.name,
      canonicalName: row.canonicalName,
      countryCode: row.countryCode,
      targetType: row.targetType,
      sourceParentId: row.parentId,
      parentId: chain.parentId,
      chainStatus: chain.status,
      unresolvedParentId: chain.unresolvedParentId,
      precision: chain.pathIds.length,
      pathIds: chain.pathIds,
      typeBucket: typeBucket(row.targetType),
      nameNorm: normalizeSearchText(row.name),
      textNorm: searchHaystack(row.name, row.canonicalName),
    };
  });
}
