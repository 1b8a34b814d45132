/**
 * An in-memory search index over rows already in rank order, shared by the FULL and LEGACY
 * catalogs. Both rank by (tier, segment, name, ...) where the segment is a type bucket or level and
 * names are sorted inside each segment, so:
 *   - name-prefix tiers are one binary search per segment;
 *   - word-prefix rows come from per-word posting lists when few, else from a scan;
 *   - substring rows come from one native `indexOf` scan over the joined texts, which visits rows
 *     in rank order and stops once the page is full.
 * Every operation works on a scope: all rows, or the rows of one group (a country), which have
 * their own joined texts so a country's scan never reads other countries' text.
 * Built once per release; nothing is allocated per row at query time beyond the results.
 */

/** Code point order (UTF-8 byte order, PostgreSQL's COLLATE "C"). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 puts surrogates (code points above U+FFFF) below U+E000–U+FFFF; code point order does not.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
      y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** UTF-16 code unit order (JavaScript's `<`). */
export const compareCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const SURROGATE = /[\ud800-\udfff]/;
/** The faster native comparison when it agrees with code point order on every given string. */
export function codePointComparatorFor(strings: Iterable<string>): (a: string, b: string) => number {
  for (const s of strings) if (SURROGATE.test(s)) return compareCodePoints;
  return compareCodeUnits;
}

export interface TextIndexRows {
  /** Sort key inside a segment; sorted by `compare` within each segment. */
  names: readonly string[];
  /** Search text of each row: words separated by single spaces, with a leading space. No newlines. */
  texts: readonly string[];
  /** First row of each segment, plus the row count at the end (length = segments + 1). */
  segmentStarts: Int32Array;
  /** Group of each row (0..groupCount-1). */
  groups: Uint16Array;
  groupCount: number;
  compare: (a: string, b: string) => number;
}

/** A contiguous run of positions; `rows` maps a position to its row (null: position = row). */
export interface Scope {
  rows: Int32Array | null;
  lo: number;
  hi: number;
  hay: string;
  /** Offset of each position's text in `hay` (one newline between texts; a sentinel at the end). */
  starts: Int32Array;
}

/** Word postings are merged only up to this many rows; beyond, a scan finds a full page sooner. */
export const GATHER_LIMIT = 2048;

export interface TextIndexOptions {
  /** GATHER_LIMIT unless given (tests use 0 and a large value to exercise both ways). */
  gatherLimit?: number;
}

function joinTexts(texts: readonly string[], order: Int32Array | null, count: number): { hay: string; starts: Int32Array } {
  const starts = new Int32Array(count + 1);
  const parts: string[] = new Array(count);
  let at = 0;
  for (let k = 0; k < count; k++) {
    const text = texts[order ? order[k]! : k]!;
    starts[k] = at;
    parts[k] = text;
    at += text.length + 1;
  }
  starts[count] = at;
  return { hay: parts.join('\n'), starts };
}

export class TextIndex {
  readonly size: number;
  readonly global: Scope;
  private readonly groupScopes: Scope[];
  /** Distinct words, sorted by code unit, and the rows holding each (ascending). */
  private readonly words: string[];
  private readonly postingStarts: Int32Array;
  private readonly postings: Int32Array;

  readonly gatherLimit: number;

  constructor(readonly rows: TextIndexRows, options: TextIndexOptions = {}) {
    this.gatherLimit = options.gatherLimit ?? GATHER_LIMIT;
    const n = rows.names.length;
    this.size = n;
    const global = joinTexts(rows.texts, null, n);
    this.global = { rows: null, lo: 0, hi: n, ...global };

    // Rows by group, rank order kept inside each group (counting sort).
    const groupStarts = new Int32Array(rows.groupCount + 1);
    for (let r = 0; r < n; r++) groupStarts[rows.groups[r]! + 1]!++;
    for (let g = 0; g < rows.groupCount; g++) groupStarts[g + 1]! += groupStarts[g]!;
    const byGroup = new Int32Array(n);
    const fill = groupStarts.slice(0, rows.groupCount);
    for (let r = 0; r < n; r++) byGroup[fill[rows.groups[r]!]!++] = r;
    const grouped = joinTexts(rows.texts, byGroup, n);
    this.groupScopes = Array.from({ length: rows.groupCount }, (_, g) => ({
      rows: byGroup, lo: groupStarts[g]!, hi: groupStarts[g + 1]!, ...grouped,
    }));

    // Word postings: rows are visited in rank order, so each list comes out sorted.
    const lists = new Map<string, number[]>();
    for (let r = 0; r < n; r++) {
      const text = rows.texts[r]!;
      let from = 1;
      while (from < text.length) {
        let to = text.indexOf(' ', from);
        if (to < 0) to = text.length;
        if (to > from) {
          const word = text.slice(from, to);
          const list = lists.get(word);
          if (list === undefined) lists.set(word, [r]);
          else if (list[list.length - 1] !== r) list.push(r);
        }
        from = to + 1;
      }
    }
    this.words = [...lists.keys()].sort(compareCodeUnits);
    this.postingStarts = new Int32Array(this.words.length + 1);
    let total = 0;
    for (let w = 0; w < this.words.length; w++) {
      this.postingStarts[w] = total;
      total += lists.get(this.words[w]!)!.length;
    }
    this.postingStarts[this.words.length] = total;
    this.postings = new Int32Array(total);
    for (let w = 0; w < this.words.length; w++) this.postings.set(lists.get(this.words[w]!)!, this.postingStarts[w]!);
  }

  groupScope(group: number): Scope {
    return this.groupScopes[group]!;
  }

  /** First position of `scope` whose row is >= `row`. */
  positionOf(scope: Scope, row: number): number {
    if (scope.rows === null) return Math.max(scope.lo, Math.min(scope.hi, row));
    let low = scope.lo;
    let high = scope.hi;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (scope.rows[middle]! < row) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  rowAt(scope: Scope, position: number): number {
    return scope.rows === null ? position : scope.rows[position]!;
  }

  /** Positions of `segment` in `scope`: [from, to). */
  segmentPositions(scope: Scope, segment: number): [number, number] {
    const { segmentStarts } = this.rows;
    return [this.positionOf(scope, segmentStarts[segment]!), this.positionOf(scope, segmentStarts[segment + 1]!)];
  }

  /**
   * Positions in [from, to) (one segment of `scope`) whose name starts with `prefix`: [lo, equalEnd, hi),
   * names equal to the prefix first (no other name with that prefix sorts before it).
   */
  prefixPositions(scope: Scope, from: number, to: number, prefix: string): [number, number, number] {
    const { names, compare } = this.rows;
    const name = (position: number) => names[this.rowAt(scope, position)]!;
    const firstWhere = (low: number, high: number, before: (value: string) => boolean) => {
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (before(name(middle))) low = middle + 1;
        else high = middle;
      }
      return low;
    };
    const lo = firstWhere(from, to, (value) => compare(value, prefix) < 0);
    const equalEnd = firstWhere(lo, to, (value) => value === prefix);
    const hi = firstWhere(equalEnd, to, (value) => value.startsWith(prefix));
    return [lo, equalEnd, hi];
  }

  /**
   * Calls `visit` with each position in [from, to) of `scope` whose text contains `pattern`, in
   * order, until it returns false. One native scan of the scope's joined texts.
   */
  scan(scope: Scope, pattern: string, from: number, to: number, visit: (position: number) => boolean): void {
    if (from >= to) return;
    const { starts } = scope;
    const base = starts[from]!;
    // A window of the joined texts bounds the native search to this range.
    const window = scope.hay.slice(base, starts[to]! - 1);
    let position = from;
    while (position < to) {
      const at = window.indexOf(pattern, starts[position]! - base);
      if (at < 0) return;
      const offset = at + base;
      let low = position;
      let high = to - 1;
      while (low < high) {
        const middle = (low + high + 1) >>> 1;
        if (starts[middle]! <= offset) low = middle;
        else high = middle - 1;
      }
      if (!visit(low)) return;
      position = low + 1;
    }
  }

  /** Word range [lo, hi) of the words that start with `prefix`, and how many postings it holds. */
  wordsWithPrefix(prefix: string): { lo: number; hi: number; total: number } {
    const { words } = this;
    let low = 0;
    let high = words.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (words[middle]! < prefix) low = middle + 1;
      else high = middle;
    }
    const lo = low;
    high = words.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (words[middle]!.startsWith(prefix)) low = middle + 1;
      else high = middle;
    }
    return { lo, hi: low, total: this.postingStarts[low]! - this.postingStarts[lo]! };
  }

  /** Word range of exactly `word` (empty when absent). */
  exactWord(word: string): { lo: number; hi: number; total: number } {
    const range = this.wordsWithPrefix(word);
    const hi = range.lo < range.hi && this.words[range.lo] === word ? range.lo + 1 : range.lo;
    return { lo: range.lo, hi, total: this.postingStarts[hi]! - this.postingStarts[range.lo]! };
  }

  /** Rows (ascending, distinct) holding any word of the range. */
  rowsOfWords(lo: number, hi: number): Int32Array {
    const gathered = this.postings.slice(this.postingStarts[lo]!, this.postingStarts[hi]!);
    if (hi - lo > 1) gathered.sort();
    let kept = 0;
    for (let i = 0; i < gathered.length; i++) if (i === 0 || gathered[i] !== gathered[i - 1]) gathered[kept++] = gathered[i]!;
    return gathered.subarray(0, kept);
  }

}
