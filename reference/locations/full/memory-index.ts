import { codePointComparatorFor, TextIndex, type Scope, type TextIndexOptions } from '../text-index.js';
import type { CatalogRow } from './catalog-rows.js';
import type { CursorPosition } from './cursor.js';
import { fitsBigint, type CurrentRelease } from './queries.js';
import type { SearchConstraints } from './search.js';
import { ALL_BUCKETS, bucketsForTypes, OTHER_BUCKET } from './type-buckets.js';

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

class Table {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();
  idOf(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }
  find(value: string): number | undefined {
    return this.ids.get(value);
  }
}

export class FullIndex {
  readonly size: number;
  readonly ids: string[];
  readonly names: string[];
  readonly canonicalNames: string[];
  readonly sourceParentIds: (string | null)[];
  readonly unresolvedParentIds: (string | null)[];
  readonly countries = new Table();
  readonly types = new Table();
  readonly countryOf: Uint16Array;
  readonly typeOf: Uint16Array;
  readonly bucketOf: Uint8Array;
  readonly chainOf: Uint8Array;
  readonly levelOf: Uint8Array;
  /** Verified parent row, -1 for none. */
  readonly parentOf: Int32Array;
  readonly depthOf: Uint16Array;
  private readonly rowById = new Map<string, number>();
  private readonly childStarts: Int32Array;
  private readonly children: Int32Array;
  /** Top-level rows (no source parent), by country code: what a country-code q finds first. */
  private readonly topLevelRecords = new Map<string, number[]>();
  readonly text: TextIndex;
  /** How long reading the release and indexing it took (set by the reader, for reports). */
  timings = { readMs: 0, indexMs: 0 };

  constructor(source: readonly FullIndexRow[], readonly release: CurrentRelease, readonly legacyFingerprint: string | null, options: TextIndexOptions = {}) {
    const compareNames = codePointComparatorFor(source.map((row) => row.nameNorm));
    const order = source.map((_, i) => i);
    order.sort((a, b) => {
      const x = source[a]!;
      const y = source[b]!;
      return x.typeBucket - y.typeBucket || compareNames(x.nameNorm, y.nameNorm) || compareIds(x.locationId, y.locationId);
    });
    const n = (this.size = order.length);
    const rows = order.map((i) => source[i]!);
    this.ids = rows.map((row) => row.locationId);
    rows.forEach((row, r) => this.rowById.set(row.locationId, r));
    this.names = rows.map((row) => row.name);
    this.canonicalNames = rows.map((row) => row.canonicalName);
    // Equal strings share one copy: most source parents are the verified parent's id.
    this.sourceParentIds = rows.map((row) => {
      const parent = row.sourceParentId === null ? undefined : this.rowById.get(row.sourceParentId);
      return parent === undefined ? row.sourceParentId : this.ids[parent]!;
    });
    this.unresolvedParentIds = rows.map((row) => row.unresolvedParentId);
    this.countryOf = new Uint16Array(n);
    this.typeOf = new Uint16Array(n);
    this.bucketOf = new Uint8Array(n);
    this.chainOf = new Uint8Array(n);
    this.levelOf = new Uint8Array(n);
    this.parentOf = new Int32Array(n);
    this.depthOf = new Uint16Array(n);
    const segmentStarts = new Int32Array(OTHER_BUCKET + 2);
    segmentStarts.fill(n);
    for (let r = n - 1; r >= 0; r--) {
      const row = rows[r]!;
      this.countryOf[r] = this.countries.idOf(row.countryCode);
      this.typeOf[r] = this.types.idOf(row.targetType);
      this.bucketOf[r] = row.typeBucket;
      segmentStarts[row.typeBucket] = r;
      this.chainOf[r] = row.chainStatus === 'COMPLETE' ? 0 : 1;
      this.levelOf[r] = LEVELS.indexOf(row.legacyLevel);
      this.parentOf[r] = row.parentId === null ? -1 : (this.rowById.get(row.parentId) ?? -1);
      if (row.sourceParentId === null) {
        const list = this.topLevelRecords.get(row.countryCode) ?? [];
        list.unshift(r);
        this.topLevelRecords.set(row.countryCode, list);
      }
    }
    // An empty bucket starts where the next one does.
    for (let b = OTHER_BUCKET; b >= 0; b--) segmentStarts[b] = Math.min(segmentStarts[b]!, segmentStarts[b + 1]!);
    for (let r = 0; r < n; r++) this.depth(r);

    // Verified children, ascending (counting sort by parent).
    this.childStarts = new Int32Array(n + 1);
    for (let r = 0; r < n; r++) if (this.parentOf[r]! >= 0) this.childStarts[this.parentOf[r]! + 1]!++;
    for (let r = 0; r < n; r++) this.childStarts[r + 1]! += this.childStarts[r]!;
    this.children = new Int32Array(this.childStarts[n]!);
    const fill = this.childStarts.slice(0, n);
    for (let r = 0; r < n; r++) if (this.parentOf[r]! >= 0) this.children[fill[this.parentOf[r]!]!++] = r;

    const nameLengths = new Uint32Array(n);
    rows.forEach((row, r) => {
      // The folded name opens the search text: the index keeps only the text.
      if (!row.textNorm.startsWith(` ${row.nameNorm} `)) throw new Error(`location ${row.locationId}: text_norm does not open with name_norm`);
      nameLengths[r] = row.nameNorm.length;
    });
    this.text = new TextIndex({
      texts: rows.map((row) => row.textNorm),
      nameLengths,
      segmentStarts,
      groups: this.countryOf,
      groupCount: this.countries.values.length,
      codePointOrder: true,
    }, options);
  }

  /** Verified depth (= hierarchy_precision); parents are resolved before children use them. */
  private depth(r: number): number {
    if (this.depthOf[r] !== 0) return this.depthOf[r]!;
    const chain: number[] = [];
    let at = r;
    while (at >= 0 && this.depthOf[at] === 0) {
      chain.push(at);
      at = this.parentOf[at]!;
    }
    let depth = at >= 0 ? this.depthOf[at]! : 0;
    for (let i = chain.length - 1; i >= 0; i--) this.depthOf[chain[i]!] = ++depth;
    return this.depthOf[r]!;
  }

  /** Row of an active location id (any digit string, compared as a number), or undefined. */
  rowOf(id: string): number | undefined {
    if (!/^[0-9]+$/.test(id) || !fitsBigint(id)) return undefined;
    return this.rowById.get(id) ?? this.rowById.get(canonicalId(id));
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
    return { tier, bucket: this.bucketOf[r]!, name: this.text.name(r), id: this.ids[r]! };
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
        compareIds(this.ids[middle]!, afterId);
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
    const id = q !== null && /^[0-9]+$/.test(q) ? this.rowOf(q) : undefined;
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
