import type { Level, RegistryEntry, SourceRow } from './source-row.js';

/**
 * Which source records become registry v1 entries, and under which registry parent.
 * The choices (documented in README.md):
 * - COUNTRY: an active record without a source parent. Those are the provider's `Country` rows
 *   and the territories it lists at top level with type `Region` (Puerto Rico, Hong Kong, ...).
 * - REGION: an active record of a first-level administrative type whose verified parent is a
 *   COUNTRY entry. Deeper administrative levels (Spanish provinces under autonomous communities,
 *   Italian provinces under regions) are not registry entries.
 * - CITY: an active `City` or `Municipality` record whose verified chain reaches a COUNTRY. Its
 *   registry parent is the nearest REGION on that chain, else its COUNTRY. A city whose chain
 *   stops at a parent missing from the release is kept only when its country has no regions
 *   (then the country is the right parent whatever the missing link was).
 */
const REGION_TARGET_TYPES: ReadonlySet<string> = new Set([
  'State', 'Province', 'Region', 'Prefecture', 'Governorate', 'Canton', 'Autonomous Community',
  'Union Territory', 'Territory', 'Department', 'County', 'District', 'Okrug',
]);
const CITY_TARGET_TYPES: ReadonlySet<string> = new Set(['City', 'Municipality']);

const ACTIVE = 'Active';

export interface DerivedRegistry {
  entries: RegistryEntry[];
  /** Active cities left out because their chain is unresolved in a country that has regions. */
  unplacedCities: string[];
}

interface Chain {
  ancestors: SourceRow[]; // nearest first, verified only
  complete: boolean;
}

/** Follows verified parents (present, active, no cycle) upward from a record. */
function verifiedChain(row: SourceRow, active: Map<string, SourceRow>): Chain {
  const ancestors: SourceRow[] = [];
  const seen = new Set<string>([row.id]);
  let current = row;
  while (current.parentId !== null) {
    const parent = active.get(current.parentId);
    if (!parent || seen.has(parent.id)) return { ancestors, complete: false };
    ancestors.push(parent);
    seen.add(parent.id);
    current = parent;
  }
  return { ancestors, complete: true };
}

function entry(row: SourceRow, level: Level, parentId: string | null): RegistryEntry {
  return {
    id: row.id,
    name: row.name,
    canonicalName: row.canonicalName,
    countryCode: row.countryCode,
    targetType: row.targetType,
    level,
    parentId,
  };
}

const byNumericId = (a: { id: string }, b: { id: string }) =>
  a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Pure: the same rows always give the same registry, in id order. */
export function deriveRegistry(rows: Iterable<SourceRow>): DerivedRegistry {
  const active = new Map<string, SourceRow>();
  for (const row of rows) if (row.status === ACTIVE) active.set(row.id, row);

  // One COUNTRY per country code: a `Country` root wins over a territory root of the same code.
  const countryByCode = new Map<string, SourceRow>();
  for (const row of active.values()) {
    if (row.parentId !== null) continue;
    const held = countryByCode.get(row.countryCode);
    if (!held || (held.targetType !== 'Country' && row.targetType === 'Country') ||
        (held.targetType === row.targetType && byNumericId(row, held) < 0)) {
      countryByCode.set(row.countryCode, row);
    }
  }
  const countryIds = new Set([...countryByCode.values()].map((row) => row.id));

  const regions = new Map<string, SourceRow>();
  for (const row of active.values()) {
    if (row.parentId !== null && countryIds.has(row.parentId) && REGION_TARGET_TYPES.has(row.targetType)) {
      regions.set(row.id, row);
    }
  }
  const countriesWithRegions = new Set([...regions.values()].map((row) => row.parentId));

  const entries: RegistryEntry[] = [];
  for (const row of countryByCode.values()) entries.push(entry(row, 'COUNTRY', null));
  for (const row of regions.values()) entries.push(entry(row, 'REGION', row.parentId));

  const unplacedCities: string[] = [];
  for (const row of active.values()) {
    if (!CITY_TARGET_TYPES.has(row.targetType) || countryIds.has(row.id) || regions.has(row.id)) continue;
    const chain = verifiedChain(row, active);
    const region = chain.ancestors.find((ancestor) => regions.has(ancestor.id));
    const root = chain.ancestors.at(-1);
    if (region) {
      entries.push(entry(row, 'CITY', region.id));
    } else if (chain.complete && root && countryIds.has(root.id)) {
      entries.push(entry(row, 'CITY', root.id));
    } else {
      const country = countryByCode.get(row.countryCode);
      if (!chain.complete && country && !countriesWithRegions.has(country.id)) {
        entries.push(entry(row, 'CITY', country.id));
      } else {
        unplacedCities.push(row.id);
      }
    }
  }
  entries.sort(byNumericId);
  unplacedCities.sort((a, b) => byNumericId({ id: a }, { id: b }));
  return { entries, unplacedCities };
}
