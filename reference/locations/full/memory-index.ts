import { stringInterner } from '../interner.js';
import { StringColumn, type StringColumnState } from '../string-column.js';
import { codePointComparatorFor, TextIndex, type Scope, type TextIndexOptions, type TextIndexState } from '../text-index.js';
import type { CatalogRow } from './catalog-rows.js';
import type { CursorPosition } from './cursor.js';
import { fitsBigint, type CurrentRelease } from './queries.js';
import type { SearchConstraints } from './search.js';
import { ALL_BUCKETS, bucketsForTypes, OTHER_BUCKET } from './type-buckets.js';
import { StringTable } from '../../../platform/text/string-table.js';

/**
 * The current FULL release in memory, built once per release (and LEGACY build, which labels
 * `legacy_level`). Answers lookups and ranked search exactly as the SQL of `search.ts` and
 * `queries.ts` defines them; rows are kept column-wise, in search rank order (type bucket, folded
 * name in code point order, id).
 */
export type LegacyLevel = 'COUNTRY' | 'REGION' | 'CITY';

/** A catalog row as the index keeps it: without what only the database stores, with the LEGACY level. */
export interface FullIndexRow extends Omit<CatalogRow, 'precision' | 'pathIds'> {
  legacyLevel: LegacyLevel | null;
}

export interface FullMatch {
  row: number;
  tier: number;
}

const LEVELS: readonly (LegacyLevel | null)[] = [null, 'COUNTRY', 'REGION', 'CITY'];
const CHAIN_STATUSES = ['COMPLETE', 'UNRESOLVED_SOURCE_PARENT'] as const;

/** Canonical decimal form of a digit string (what a bigint comparison sees). */
const canonicalId = (digits: string) => BigInt(digits).toString();
const compareIds = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/**
 * The rows of a release column-wise, in any order: what the reader collects, without an object
 * per row. The index takes the arrays over (reorders them in place).
 */
export type FullIndexColumns = { [K in keyof FullIndexRow]: FullIndexRow[K][] };

function columnsOf(rows: readonly FullIndexRow[]): FullIndexColumns {
  return {
    locationId: rows.map((row) => row.locationId), name: rows.map((row) => row.name), canonicalName: rows.map((row) => row.canonicalName),
    countryCode: rows.map((row) => row.countryCode), targetType: rows.map((row) => row.targetType),
    sourceParentId: rows.map((row) => row.sourceParentId), parentId: rows.map((row) => row.parentId),
    chainStatus: rows.map((row) => row.chainStatus), unresolvedParentId: rows.map((row) => row.unresolvedParentId),
    typeBucket: rows.map((row) => row.typeBucket), nameNorm: rows.map((row) => row.nameNorm), textNorm: rows.map((row) => row.textNorm),
    legacyLevel: rows.map((row) => row.legacyLevel),
  };
}

/** Reorders `column` in place so that position k holds what was at order[k]. */
function permute(column: unknown[], order: Int32Array, done: Uint8Array) {
  done.fill(0);
  for (let start = 0; start < order.length; start++) {
    if (done[start]) continue;
    const first = column[start];
    let k = start;
    for (;;) {
      done[k] = 1;
      const from = order[k]!;
      if (from === start) break;
      column[k] = column[from];
      k = from;
    }
    column[k] = first;
  }
}

/**
 * Row of each id: open addressing in one typed array, ids compared in place in their column. A
 * Map of the full-size catalog's ids held 14 MB of heap (that the collector walks); this holds
 * 2 MB outside it.
 */
class IdTable {
  private readonly mask: number;
  constructor(private readonly ids: StringColumn, readonly slots: Int32Array) {
    this.mask = slots.length - 1;
  }
  static slotsFor(ids: readonly string[]): Int32Array {
    let size = 16;
    while (size < ids.length + (ids.length >> 1)) size *= 2;
    const slots = new Int32Array(size);
    const mask = size - 1;
    for (let r = 0; r < ids.length; r++) {
      let slot = hashId(ids[r]!) & mask;
      // Slots hold row + 1 (0 is empty); a repeated id keeps its last row.
      while (slots[slot] !== 0 && ids[slots[slot]! - 1] !== ids[r]) slot = (slot + 1) & mask;
      slots[slot] = r + 1;
    }
    return slots;
  }
  find(id: string): number | undefined {
    for (let slot = hashId(id) & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) return undefined;
      if (this.ids.equals(entry - 1, id)) return entry - 1;
    }
  }
}

function hashId(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash ^ (hash >>> 15);
}

/** Indexes a release's rows (any order; the columns are reordered in place). */
function buildFullIndex(columns: FullIndexColumns, options: TextIndexOptions): FullIndexState {
  const { typeBucket: buckets, nameNorm: nameNorms, locationId: ids } = columns;
  const n = ids.length;
  const compareNames = codePointComparatorFor(nameNorms);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => buckets[a]! - buckets[b]! || compareNames(nameNorms[a]!, nameNorms[b]!) || compareIds(ids[a]!, ids[b]!));
  // Rank order in place: no second copy of any column.
  const done = new Uint8Array(n);
  for (const column of Object.values(columns)) permute(column, order, done);
  const idColumn = StringColumn.of(ids);
  const rowById = new IdTable(idColumn, IdTable.slotsFor(ids));

  const countries = new StringTable();
  const types = new StringTable();
  const countryOf = new Uint16Array(n);
  const typeOf = new Uint16Array(n);
  const bucketOf = new Uint8Array(n);
  const chainOf = new Uint8Array(n);
  const levelOf = new Uint8Array(n);
  const parentOf = new Int32Array(n);
  const otherSourceParentRows: number[] = [];
  const otherSourceParentIds: (string | null)[] = [];
  const unresolvedRows: number[] = [];
  const unresolvedIds: string[] = [];
  const topLevelRows: number[] = [];
  const segmentStarts = new Int32Array(OTHER_BUCKET + 2);
  segmentStarts.fill(n);
  for (let r = n - 1; r >= 0; r--) {
    countryOf[r] = countries.idOf(columns.countryCode[r]!);
    typeOf[r] = types.idOf(columns.targetType[r]!);
    bucketOf[r] = buckets[r]!;
    segmentStarts[buckets[r]!] = r;
    chainOf[r] = columns.chainStatus[r] === 'COMPLETE' ? 0 : 1;
    levelOf[r] = LEVELS.indexOf(columns.legacyLevel[r]!);
    const parentId = columns.parentId[r]!;
    const parent = parentId === null ? -1 : (rowById.find(parentId) ?? -1);
    parentOf[r] = parent;
    const sourceParentId = columns.sourceParentId[r]!;
    if (sourceParentId !== (parent < 0 ? null : ids[parent])) {
      const row = sourceParentId === null ? undefined : rowById.find(sourceParentId);
      otherSourceParentRows.push(r);
      otherSourceParentIds.push(row === undefined ? sourceParentId : ids[row]!);
    }
    const unresolved = columns.unresolvedParentId[r]!;
    if (unresolved !== null) {
      unresolvedRows.push(r);
      unresolvedIds.push(unresolved);
    }
    if (sourceParentId === null) topLevelRows.push(r);
  }
  // An empty bucket starts where the next one does.
  for (let b = OTHER_BUCKET; b >= 0; b--) segmentStarts[b] = Math.min(segmentStarts[b]!, segmentStarts[b + 1]!);
  const depthOf = depths(parentOf);

  // Verified children, ascending (counting sort by parent).
  const childStarts = new Int32Array(n + 1);
  for (let r = 0; r < n; r++) if (parentOf[r]! >= 0) childStarts[parentOf[r]! + 1]!++;
  for (let r = 0; r < n; r++) childStarts[r + 1]! += childStarts[r]!;
  const children = new Int32Array(childStarts[n]!);
  const fill = childStarts.slice(0, n);
  for (let r = 0; r < n; r++) if (parentOf[r]! >= 0) children[fill[parentOf[r]!]!++] = r;

  const texts = columns.textNorm;
  const nameLengths = new Uint32Array(n);
  for (let r = 0; r < n; r++) {
    // The folded name opens the search text: the index keeps only the text.
    const text = texts[r]!;
    const name = nameNorms[r]!;
    if (text.charCodeAt(0) !== 32 || !text.startsWith(name, 1) || text.charCodeAt(name.length + 1) !== 32) {
      throw new Error(`location ${ids[r]}: text_norm does not open with name_norm`);
    }
    nameLengths[r] = name.length;
  }
  const text = new TextIndex({
    texts,
    nameLengths,
    segmentStarts,
    groups: countryOf,
    groupCount: countries.values.length,
    codePointOrder: true,
  }, options);
  // Collected from the last row: reversed, ascending.
  const ascending = (rows: number[]) => Int32Array.from(rows.reverse());
  return {
    ids: idColumn.state, names: StringColumn.of(columns.name).state, canonicalNames: StringColumn.of(columns.canonicalName).state, countries: countries.values, types: types.values,
    countryOf, typeOf, bucketOf, chainOf, levelOf, parentOf, depthOf, idSlots: rowById.slots,
    otherSourceParentRows: ascending(otherSourceParentRows), otherSourceParentIds: otherSourceParentIds.reverse(),
    unresolvedRows: ascending(unresolvedRows), unresolvedIds: unresolvedIds.reverse(),
    topLevelRows: ascending(topLevelRows), childStarts, children, text: text.state,
  };
}

/** Verified depth (= hierarchy_precision) of every row, walking each chain once. */
function depths(parentOf: Int32Array): Uint16Array {
  const depthOf = new Uint16Array(parentOf.length);
  const chain = new Int32Array(parentOf.length);
  for (let r = 0; r < parentOf.length; r++) {
    if (depthOf[r] !== 0) continue;
    let length = 0;
    let at = r;
    while (at >= 0 && depthOf[at] === 0) {
      chain[length++] = at;
      at = parentOf[at]!;
    }
    let depth = at >= 0 ? depthOf[at]! : 0;
    while (length > 0) depthOf[chain[--length]!] = ++depth;
  }
  return depthOf;
}

/**
 * Everything a FullIndex holds, as plain data (rows in rank order): what the constructor builds
 * from the release's rows, and what a snapshot stores and gives back (see `FullIndex.state`).
 */
export interface FullIndexState {
  ids: StringColumnState;
  names: StringColumnState;
  canonicalNames: StringColumnState;
  /** Distinct country codes and target types; rows hold their positions. */
  countries: string[];
  types: string[];
  countryOf: Uint16Array;
  typeOf: Uint16Array;
  bucketOf: Uint8Array;
  chainOf: Uint8Array;
  levelOf: Uint8Array;
  parentOf: Int32Array;
  depthOf: Uint16Array;
  idSlots: Int32Array;
  /** Rows whose raw source parent is not the verified parent's id, and that raw id (null: empty). */
  otherSourceParentRows: Int32Array;
  otherSourceParentIds: (string | null)[];
  unresolvedRows: Int32Array;
  unresolvedIds: string[];
  /** Rows without a source parent, ascending. */
  topLevelRows: Int32Array;
  childStarts: Int32Array;
  children: Int32Array;
  text: TextIndexState;
}

export class FullIndex {
  readonly size: number;
  readonly ids: StringColumn;
  readonly names: StringColumn;
  readonly canonicalNames: StringColumn;
  readonly countries: StringTable;
  readonly types: StringTable;
  readonly countryOf: Uint16Array;
  readonly typeOf: Uint16Array;
  readonly bucketOf: Uint8Array;
  readonly chainOf: Uint8Array;
  readonly levelOf: Uint8Array;
  /** Verified parent row, -1 for none. */
  readonly parentOf: Int32Array;
  readonly depthOf: Uint16Array;
  private readonly rowById: IdTable;
  /** Raw source parents that are not the verified parent's id (by row); the rest are that id. */
  private readonly otherSourceParents = new Map<number, string | null>();
  /** Where a chain stopped, for the rows whose chain did not complete. */
  private readonly unresolvedParents = new Map<number, string>();
  private readonly childStarts: Int32Array;
  private readonly children: Int32Array;
  /** Top-level rows (no source parent), by country code: what a country-code q finds first. */
  private readonly topLevelRecords = new Map<string, number[]>();
  readonly text: TextIndex;
  /** What the index was made of (kept for `state`; the arrays are shared, not copied). */
  private readonly made: FullIndexState;
  /** How long reading the release and indexing it took, and whether it came from a snapshot (set by the reader, for reports). */
  timings = { readMs: 0, indexMs: 0, restored: false };

  /** Builds the index of a release's rows, or takes over a state built before (a snapshot's). */
  constructor(source: readonly FullIndexRow[] | FullIndexColumns | FullIndexState, readonly release: CurrentRelease, readonly legacyFingerprint: string | null, options: TextIndexOptions = {}) {
    const state = 'idSlots' in source ? source : buildFullIndex('locationId' in source ? source : columnsOf(source), options);
    this.made = state;
    this.ids = new StringColumn(state.ids);
    this.size = this.ids.length;
    this.names = new StringColumn(state.names);
    this.canonicalNames = new StringColumn(state.canonicalNames);
    this.countries = StringTable.of(state.countries);
    this.types = StringTable.of(state.types);
    this.countryOf = state.countryOf;
    this.typeOf = state.typeOf;
    this.bucketOf = state.bucketOf;
    this.chainOf = state.chainOf;
    this.levelOf = state.levelOf;
    this.parentOf = state.parentOf;
    this.depthOf = state.depthOf;
    this.rowById = new IdTable(this.ids, state.idSlots);
    state.otherSourceParentRows.forEach((r, i) => this.otherSourceParents.set(r, state.otherSourceParentIds[i]!));
    // Equal strings share one copy (unresolved parents repeat down a subtree).
    const hold = stringInterner();
    state.unresolvedRows.forEach((r, i) => this.unresolvedParents.set(r, hold(state.unresolvedIds[i]!)));
    for (const r of state.topLevelRows) {
      const code = this.countries.values[this.countryOf[r]!]!;
      const list = this.topLevelRecords.get(code);
      if (list === undefined) this.topLevelRecords.set(code, [r]);
      else list.push(r);
    }
    this.childStarts = state.childStarts;
    this.children = state.children;
    this.text = new TextIndex(state.text);
  }

  /** The index as plain data; `new FullIndex(state, …)` gives an index that answers the same. */
  get state(): FullIndexState {
    return this.made;
  }

  /**
   * A raw target type as the release spells it, for a `target_types` value given in any letter
   * case (the reference's examples write `postal code`, `city`; the release has `Postal Code`,
   * `City`); a type the release does not have comes back as given (it matches nothing).
   */
  releaseTargetType(type: string): string {
    if (this.types.find(type) !== undefined) return type;
    const folded = type.toLowerCase();
    return this.types.values.find((value) => value.toLowerCase() === folded) ?? type;
  }

  /** Row of an active location id (any digit string, compared as a number), or undefined. */
  rowOf(id: string): number | undefined {
    if (!/^[0-9]+$/.test(id) || !fitsBigint(id)) return undefined;
    return this.rowById.find(id) ?? this.rowById.find(canonicalId(id));
  }

  /** Raw source parent id (null when empty). */
  sourceParentId(r: number): string | null {
    const other = this.otherSourceParents.get(r);
    if (other !== undefined) return other;
    const parent = this.parentOf[r]!;
    return parent < 0 ? null : this.ids.at(parent)!;
  }

  /** Raw parent id where the chain stopped, null when complete. */
  unresolvedParentId(r: number): string | null {
    return this.unresolvedParents.get(r) ?? null;
  }

  chainStatus(r: number) {
    return CHAIN_STATUSES[this.chainOf[r]!]!;
  }

  legacyLevel(r: number): LegacyLevel | null {
    return LEVELS[this.levelOf[r]!]!;
  }

  /** Root-to-self rows. */
  pathOf(r: number): number[] {
    const path: number[] = [];
    for (let at = r; at >= 0; at = this.parentOf[at]!) path.push(at);
    return path.reverse();
  }

  /** Search cursor position of a row. */
  positionOf(r: number, tier: number): CursorPosition {
    return { tier, bucket: this.bucketOf[r]!, name: this.text.name(r), id: this.ids.at(r)! };
  }

  /** Number of rows whose (bucket, name, id) key is at or before the cursor's. */
  private rowsThrough(after: CursorPosition): number {
    let low = 0;
    let high = this.size;
    const afterId = /^[0-9]+$/.test(after.id) ? after.id.replace(/^0+(?=.)/, '') : after.id;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const order =
        this.bucketOf[middle]! - after.bucket ||
        Math.sign(this.text.compareName(middle, after.name)) ||
        compareIds(this.ids.at(middle)!, afterId);
      if (order <= 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /**
   * Up to `want` matches after `after`, best first (search.ts: tiers, then bucket, folded name,
   * id). The caller asks for one more than the page to learn whether another page exists.
   */
  search(constraints: SearchConstraints, want: number, after?: CursorPosition): FullMatch[] {
    const { q } = constraints;
    const found: FullMatch[] = [];
    if (constraints.parentId !== null && !fitsBigint(constraints.parentId)) return found;
    let country = -1;
    if (constraints.country !== null) {
      const id = this.countries.find(constraints.country);
      if (id === undefined) return found;
      country = id;
    }
    let typeAllowed: Uint8Array | null = null;
    if (constraints.targetTypes !== null) {
      typeAllowed = new Uint8Array(this.types.values.length);
      for (const type of constraints.targetTypes) {
        const id = this.types.find(type);
        if (id !== undefined) typeAllowed[id] = 1;
      }
    }
    const buckets = constraints.targetTypes === null ? ALL_BUCKETS : bucketsForTypes(constraints.targetTypes);
    const through = after ? this.rowsThrough(after) : 0;
    /** First row a tier may return (rows at or before the cursor are on earlier pages). */
    const firstRow = (tier: number) => (!after || tier > after.tier ? 0 : tier === after.tier ? through : this.size);
    const passes = (r: number) =>
      (country < 0 || this.countryOf[r] === country) && (typeAllowed === null || typeAllowed[this.typeOf[r]!] === 1);

    // Tier 0 candidates: the id itself, and the top-level records of a two-letter q (territories too).
    const exact: number[] = [];
    // An id as written (search.ts): no leading zeros.
    const id = q !== null && /^(?:0|[1-9][0-9]*)$/.test(q) ? this.rowOf(q) : undefined;
    if (id !== undefined) exact.push(id);
    const countryCode = q !== null && /^[a-z]{2}$/.test(q) ? q.toUpperCase() : undefined;
    if (countryCode !== undefined) for (const r of this.topLevelRecords.get(countryCode) ?? []) if (r !== id) exact.push(r);
    exact.sort((a, b) => a - b);
    const isExact = (r: number) => exact.length > 0 && exact.includes(r);

    if (constraints.parentId !== null) {
      const parent = this.rowOf(constraints.parentId);
      if (parent === undefined) return found;
      return this.rankList(this.children.subarray(this.childStarts[parent]!, this.childStarts[parent + 1]!), constraints, want, after, through, passes, isExact, countryCode);
    }
    if (q === null) {
      const scope = country >= 0 ? this.text.groupScope(country) : this.text.global;
      for (const bucket of buckets) {
        const [from, to] = this.text.segmentPositions(scope, bucket);
        for (let k = Math.max(from, this.text.positionOf(scope, firstRow(0))); k < to && found.length < want; k++) {
          const r = this.text.rowAt(scope, k);
          if (passes(r)) found.push({ row: r, tier: 0 });
        }
      }
      return found;
    }

    const scope = country >= 0 ? this.text.groupScope(country) : this.text.global;
    const full = () => found.length >= want;
    const spaced = ` ${q}`;

    // 0: exact
    for (const r of exact) if (!full() && r >= firstRow(0) && passes(r)) found.push({ row: r, tier: 0 });

    // 1 and 2: name equal to q, name starting with q; one binary search per bucket.
    const ranges = buckets.map((bucket) => {
      const [from, to] = this.text.segmentPositions(scope, bucket);
      return this.text.prefixPositions(scope, from, to, q);
    });
    for (const tier of [1, 2]) {
      const start = this.text.positionOf(scope, firstRow(tier));
      for (const [lo, equalEnd, hi] of ranges) {
        const [from, to] = tier === 1 ? [lo, equalEnd] : [equalEnd, hi];
        for (let k = Math.max(from, start); k < to && !full(); k++) {
          const r = this.text.rowAt(scope, k);
          if (passes(r) && !isExact(r)) found.push({ row: r, tier });
        }
      }
    }
    if (full()) return found;

    // 3: a word starts with q (for a q of several words: the text holds " q").
    const tokens = q.split(' ');
    const words = tokens.length === 1 ? this.text.wordsWithPrefix(q) : this.text.exactWord(tokens[0]!);
    const wordPrefix = (r: number) => passes(r) && !this.text.nameStartsWith(r, q) && !isExact(r);
    const listed = this.text.rowsOfWords(scope, words);
    if (listed !== null) {
      const from = firstRow(3);
      for (const r of listed) {
        if (full()) break;
        if (r >= from && this.bucketAllowed(r, buckets) && wordPrefix(r) && (tokens.length === 1 || this.text.textIncludes(r, spaced))) {
          found.push({ row: r, tier: 3 });
        }
      }
    } else {
      this.scanTier(scope, buckets, spaced, firstRow(3), (r) => {
        if (wordPrefix(r)) found.push({ row: r, tier: 3 });
        return !full();
      });
    }
    if (full()) return found;

    // 4: q elsewhere inside the text.
    const inside = (r: number) => passes(r) && !this.text.textIncludes(r, spaced) && !isExact(r);
    const candidates = this.text.rowsWithRarePair(scope, q);
    if (candidates !== null) {
      const from = firstRow(4);
      for (const r of candidates) {
        if (full()) break;
        if (r >= from && this.bucketAllowed(r, buckets) && passes(r) && this.text.textIncludes(r, q) && inside(r)) found.push({ row: r, tier: 4 });
      }
    } else {
      this.scanTier(scope, buckets, q, firstRow(4), (r) => {
        if (inside(r)) found.push({ row: r, tier: 4 });
        return !full();
      });
    }
    if (full() || countryCode === undefined) return found;

    // 5: every other record of the country whose code q is.
    const code = this.countries.find(countryCode);
    if (code === undefined || (country >= 0 && code !== country)) return found;
    const own = this.text.groupScope(code);
    for (const bucket of buckets) {
      const [from, to] = this.text.segmentPositions(own, bucket);
      for (let k = Math.max(from, this.text.positionOf(own, firstRow(5))); k < to && !full(); k++) {
        const r = this.text.rowAt(own, k);
        if (passes(r) && !this.text.textIncludes(r, q) && !isExact(r)) found.push({ row: r, tier: 5 });
      }
    }
    return found;
  }

  private bucketAllowed(r: number, buckets: readonly number[]): boolean {
    return buckets === ALL_BUCKETS || buckets.includes(this.bucketOf[r]!);
  }

  private scanTier(scope: Scope, buckets: readonly number[], pattern: string, firstRow: number, visit: (r: number) => boolean) {
    const start = this.text.positionOf(scope, firstRow);
    let going = true;
    for (const bucket of buckets) {
      if (!going) return;
      const [from, to] = this.text.segmentPositions(scope, bucket);
      this.text.scan(scope, pattern, Math.max(from, start), to, (k) => (going = visit(this.text.rowAt(scope, k))));
    }
  }

  /** Ranks an explicit candidate list (a parent's children) row by row: the tiers of search.ts. */
  private rankList(
    candidates: Int32Array,
    constraints: SearchConstraints,
    want: number,
    after: CursorPosition | undefined,
    through: number,
    passes: (r: number) => boolean,
    isExact: (r: number) => boolean,
    countryCode: string | undefined,
  ): FullMatch[] {
    const { q } = constraints;
    const tiers: number[][] = [[], [], [], [], [], []];
    const spaced = q === null ? '' : ` ${q}`;
    for (const r of candidates) {
      if (!passes(r)) continue;
      let tier: number | undefined;
      if (q === null) tier = 0;
      else if (isExact(r)) tier = 0;
      else if (this.text.compareName(r, q) === 0) tier = 1;
      else if (this.text.nameStartsWith(r, q)) tier = 2;
      else if (this.text.textIncludes(r, spaced)) tier = 3;
      else if (this.text.textIncludes(r, q)) tier = 4;
      else if (countryCode !== undefined && this.countries.values[this.countryOf[r]!] === countryCode) tier = 5;
      if (tier === undefined) continue;
      if (after && (tier < after.tier || (tier === after.tier && r < through))) continue;
      if (tiers[tier]!.length < want) tiers[tier]!.push(r);
    }
    const found: FullMatch[] = [];
    tiers.forEach((rows, tier) => {
      for (const row of rows) if (found.length < want) found.push({ row, tier });
    });
    return found;
  }
}
