import { FIELD_SEPARATOR, TextIndex, type TextIndexOptions, type TextIndexState } from '../text-index.js';
import { SUPERSEDED_CODES, TERRITORY_CODES } from './code-overrides.js';
import { foldText } from './normalize.js';
import { LEVEL_WEIGHT, LEVELS, type ExternalCodes, type Level, type RegistryEntry } from './source-row.js';

/** A registry record as served: the entry, its external codes and its folded search keys. */
export interface IndexedLocation extends RegistryEntry {
  codes: ExternalCodes;
  /** Folded name, and the same with a leading space for word-prefix tests. */
  folded: string;
  spaced: string;
  /** Search text: `spaced`, then the folded canonical name, kept apart so no match spans both. */
  text: string;
  /** Folded aliases that match exactly: ISO, CLDR and short codes; a country's own code. */
  aliases: string[];
}

const numericOrder = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/** Browse and tie order: level weight, then folded name, then display name, then id. */
export function compareLocations(a: IndexedLocation, b: IndexedLocation): number {
  return LEVEL_WEIGHT[a.level] - LEVEL_WEIGHT[b.level] ||
    (a.folded < b.folded ? -1 : a.folded > b.folded ? 1 : 0) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
    numericOrder(a.id, b.id);
}

/** Most locations (every city) have no aliases: they share one empty, frozen list. */
const NO_ALIASES: string[] = Object.freeze([]) as unknown as string[];
/** Most locations (every city) have no external codes: they share one empty, frozen object. */
const NO_CODES: ExternalCodes = Object.freeze({});

/** A location's external codes from its stored columns (empty or null: absent). */
export function externalCodes(iso: string | null, cldr: string | null, short: string | null): ExternalCodes {
  if (!iso && !cldr && !short) return NO_CODES;
  const codes: ExternalCodes = {};
  if (iso) codes.iso_3166_2 = iso;
  if (cldr) codes.cldr_subdivision = cldr;
  if (short) codes.provider_short = short;
  return codes;
}

/** `folded`, `text` and `spaced`: the search keys when known already (a snapshot's), else folded here. */
export function indexLocation(
  entry: RegistryEntry,
  codes: ExternalCodes,
  folded = foldText(entry.name),
  text = ` ${folded} ${FIELD_SEPARATOR} ${foldText(entry.canonicalName)}`,
  spaced = ` ${folded}`,
): IndexedLocation {
  const found = [codes.iso_3166_2, codes.cldr_subdivision, codes.provider_short, entry.level === 'COUNTRY' ? entry.countryCode : undefined]
    .filter((code): code is string => !!code);
  const aliases = found.length === 0 ? NO_ALIASES : found.map(foldText);
  // One literal with a fixed key order keeps every location on one object shape, which keeps the
  // search loop over the whole registry fast (spread objects measured many times slower).
  return {
    id: entry.id, name: entry.name, canonicalName: entry.canonicalName, countryCode: entry.countryCode,
    targetType: entry.targetType, level: entry.level, parentId: entry.parentId, codes, folded, spaced, text, aliases,
  };
}

/**
 * Everything a snapshot needs to make the registry again, in browse order, without folding
 * anything: the search keys are slices of the text index's joined text. Values that repeat are
 * held as positions in short lists, parents as positions, codes only where a location has one,
 * so a restart makes few strings besides the ones the locations keep.
 */
export interface RegistryIndexState {
  sourceFileDate: string;
  ids: string[];
  names: string[];
  canonicalNames: string[];
  countryCodes: string[];
  countryOf: Uint16Array;
  targetTypes: string[];
  typeOf: Uint16Array;
  /** Position in LEVELS. */
  levelOf: Uint8Array;
  /** Position of the parent; -1: none; -2: not a registry entry (its id in `otherParentIds`). */
  parentOf: Int32Array;
  otherParentRows: Int32Array;
  otherParentIds: string[];
  /** The locations that have external codes, and their codes (null: absent). */
  codeRows: Int32Array;
  iso: (string | null)[];
  cldr: (string | null)[];
  short: (string | null)[];
  text: TextIndexState;
}

/** Position of each distinct value of `values` in a list of them. */
function tableOf<T extends string>(values: readonly T[]): { distinct: T[]; positions: number[] } {
  const ids = new Map<T, number>();
  const positions = values.map((value) => {
    let id = ids.get(value);
    if (id === undefined) ids.set(value, (id = ids.size));
    return id;
  });
  return { distinct: [...ids.keys()], positions };
}

/** The whole registry in memory, with the lookups the three routes need. */
export class RegistryIndex {
  readonly byId = new Map<string, IndexedLocation>();
  /** Every location in browse order. */
  readonly ordered: IndexedLocation[];
  private readonly children = new Map<string, IndexedLocation[]>();
  private readonly byIso = new Map<string, IndexedLocation>();
  private readonly byCldr = new Map<string, IndexedLocation>();
  private readonly byShort = new Map<string, IndexedLocation>();
  readonly countryByCode = new Map<string, IndexedLocation>();
  /** Exact-match aliases (codes) to their locations, in browse order. */
  readonly byAlias = new Map<string, IndexedLocation[]>();
  /** Ranked text search over `ordered` (levels as segments, countries as groups; README, "Search"). */
  readonly text: TextIndex;
  readonly countryGroups = new Map<string, number>();
  private readonly descendants = new Map<string, IndexedLocation[]>();

  /** `text`: the search index of these locations built before (a snapshot's). */
  constructor(locations: IndexedLocation[], readonly sourceFileDate: string, options: TextIndexOptions = {}, text?: TextIndexState) {
    // A stored text index was made of locations already in browse order.
    this.ordered = text ? locations : [...locations].sort(compareLocations);
    for (const location of this.ordered) {
      this.byId.set(location.id, location);
      if (location.parentId !== null) {
        const siblings = this.children.get(location.parentId) ?? [];
        siblings.push(location);
        this.children.set(location.parentId, siblings);
      } else {
        this.countryByCode.set(location.countryCode, location);
      }
      const { iso_3166_2: iso, cldr_subdivision: cldr, provider_short: short } = location.codes;
      if (iso) this.byIso.set(iso, location);
      if (cldr) this.byCldr.set(cldr, location);
      if (short) this.byShort.set(`${location.countryCode}:${short}`, location);
      for (const alias of location.aliases) this.byAlias.set(alias, [...(this.byAlias.get(alias) ?? []), location]);
    }
    this.addSupersededCodes();
    this.addTerritoryCodes();
    const groups = new Uint16Array(this.ordered.length);
    const segmentStarts = new Int32Array(LEVELS.length + 1).fill(this.ordered.length);
    for (let i = this.ordered.length - 1; i >= 0; i--) {
      const location = this.ordered[i]!;
      segmentStarts[LEVEL_WEIGHT[location.level]] = i;
    }
    for (let level = LEVELS.length - 1; level >= 0; level--) segmentStarts[level] = Math.min(segmentStarts[level]!, segmentStarts[level + 1]!);
    this.ordered.forEach((location, i) => {
      let group = this.countryGroups.get(location.countryCode);
      if (group === undefined) this.countryGroups.set(location.countryCode, (group = this.countryGroups.size));
      groups[i] = group;
    });
    // Browse order sorts folded names by code unit inside each level, as prefix search needs.
    this.text = text ? new TextIndex(text) : new TextIndex({
      texts: this.ordered.map((location) => location.text),
      nameLengths: Uint32Array.from(this.ordered, (location) => location.folded.length),
      segmentStarts,
      groups,
      groupCount: this.countryGroups.size,
      codePointOrder: false,
    }, options);
    // The search texts now live in the index's joined text: each location keeps a slice of it (no
    // copy) in place of its own string, and shares its parent's id string. Restored locations
    // were made that way.
    if (text) return;
    const { hay, starts } = this.text.global;
    this.ordered.forEach((location, i) => {
      const start = starts[i]!;
      const text = hay.slice(start, starts[i + 1]! - 1);
      if (text === location.text) location.text = text;
      const spaced = hay.slice(start, start + location.spaced.length);
      if (spaced === location.spaced) location.spaced = spaced;
      if (location.parentId !== null) location.parentId = this.byId.get(location.parentId)?.id ?? location.parentId;
    });
  }

  /**
   * A superseded code (code-overrides.ts), in each of its three forms, resolves to the region
   * carrying its successor; a code some region carries as current is never shadowed.
   */
  private addSupersededCodes() {
    for (const [old, { current }] of Object.entries(SUPERSEDED_CODES)) {
      const location = this.byIso.get(current);
      if (!location) continue;
      const short = old.slice(3);
      const aliases: [Map<string, IndexedLocation>, string][] = [
        [this.byIso, old], [this.byCldr, old.replace('-', '')], [this.byShort, `${location.countryCode}:${short}`],
      ];
      for (const [map, key] of aliases) if (!map.has(key)) map.set(key, location);
    }
  }

  /** A territory's ISO 3166-2 code (code-overrides.ts) resolves to its country entry, unless a region carries it. */
  private addTerritoryCodes() {
    for (const [code, countryCode] of Object.entries(TERRITORY_CODES)) {
      const country = this.countryByCode.get(countryCode);
      if (!country) continue;
      if (!this.byIso.has(code)) this.byIso.set(code, country);
      if (!this.byCldr.has(code.replace('-', ''))) this.byCldr.set(code.replace('-', ''), country);
    }
  }

  /** The registry made again from a state (`state`), its search index taken as stored. */
  static restore(state: RegistryIndexState): RegistryIndex {
    const { hay, starts, nameLengths } = state.text;
    const codes = new Map<number, ExternalCodes>();
    state.codeRows.forEach((row, k) => codes.set(row, externalCodes(state.iso[k]!, state.cldr[k]!, state.short[k]!)));
    const otherParents = new Map<number, string>();
    state.otherParentRows.forEach((row, k) => otherParents.set(row, state.otherParentIds[k]!));
    const locations = state.ids.map((id, i) => {
      const start = starts[i]!;
      const nameEnd = start + 1 + nameLengths[i]!;
      const parent = state.parentOf[i]!;
      return indexLocation({
        id, name: state.names[i]!, canonicalName: state.canonicalNames[i]!, countryCode: state.countryCodes[state.countryOf[i]!]!,
        targetType: state.targetTypes[state.typeOf[i]!]!, level: LEVELS[state.levelOf[i]!]!,
        parentId: parent >= 0 ? state.ids[parent]! : parent === -1 ? null : otherParents.get(i)!,
      }, codes.get(i) ?? externalCodes(null, null, null), hay.slice(start + 1, nameEnd), hay.slice(start, starts[i + 1]! - 1), hay.slice(start, nameEnd));
    });
    return new RegistryIndex(locations, state.sourceFileDate, {}, state.text);
  }

  /** The registry as plain data, for a snapshot. */
  get state(): RegistryIndexState {
    const { ordered } = this;
    const row = new Map(ordered.map((location, i) => [location.id, i]));
    const countries = tableOf(ordered.map((location) => location.countryCode));
    const types = tableOf(ordered.map((location) => location.targetType));
    const parentOf = new Int32Array(ordered.length);
    const otherParentRows: number[] = [];
    const otherParentIds: string[] = [];
    const codeRows: number[] = [];
    ordered.forEach((location, i) => {
      const parent = location.parentId === null ? -1 : (row.get(location.parentId) ?? -2);
      parentOf[i] = parent;
      if (parent === -2) {
        otherParentRows.push(i);
        otherParentIds.push(location.parentId!);
      }
      if (location.codes.iso_3166_2 || location.codes.cldr_subdivision || location.codes.provider_short) codeRows.push(i);
    });
    const code = (pick: (codes: ExternalCodes) => string | undefined) => codeRows.map((i) => pick(ordered[i]!.codes) ?? null);
    return {
      sourceFileDate: this.sourceFileDate,
      ids: ordered.map((location) => location.id),
      names: ordered.map((location) => location.name),
      canonicalNames: ordered.map((location) => location.canonicalName),
      countryCodes: countries.distinct,
      countryOf: Uint16Array.from(countries.positions),
      targetTypes: types.distinct,
      typeOf: Uint16Array.from(types.positions),
      levelOf: Uint8Array.from(ordered, (location) => LEVELS.indexOf(location.level)),
      parentOf,
      otherParentRows: Int32Array.from(otherParentRows),
      otherParentIds,
      codeRows: Int32Array.from(codeRows),
      iso: code((codes) => codes.iso_3166_2),
      cldr: code((codes) => codes.cldr_subdivision),
      short: code((codes) => codes.provider_short),
      text: this.text.state,
    };
  }

  get size(): number {
    return this.byId.size;
  }

  /** Direct registry children in browse order. */
  childrenOf(id: string): IndexedLocation[] {
    return this.children.get(id) ?? [];
  }

  /** Every registry descendant (regions and cities of a country, cities of a region), in browse order; computed once per id. */
  descendantsOf(id: string): readonly IndexedLocation[] {
    const held = this.descendants.get(id);
    if (held) return held;
    const found: IndexedLocation[] = [];
    const walk = (parent: string) => {
      for (const child of this.childrenOf(parent)) {
        found.push(child);
        walk(child.id);
      }
    };
    walk(id);
    found.sort(compareLocations);
    this.descendants.set(id, found);
    return found;
  }

  /** Root-to-self. */
  pathOf(location: IndexedLocation): IndexedLocation[] {
    const path: IndexedLocation[] = [location];
    for (let at = location.parentId; at !== null; ) {
      const parent = this.byId.get(at);
      if (!parent) break;
      path.unshift(parent);
      at = parent.parentId;
    }
    return path;
  }

  byIsoCode(code: string): IndexedLocation | undefined {
    return this.byIso.get(code);
  }
  byCldrCode(code: string): IndexedLocation | undefined {
    return this.byCldr.get(code);
  }
  byProviderShort(country: string, code: string): IndexedLocation | undefined {
    return this.byShort.get(`${country}:${code}`);
  }
}

export type { Level };
