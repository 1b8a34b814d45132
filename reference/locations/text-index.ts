/**
 * An in-memory search index over rows already in rank order, shared by the FULL and LEGACY
 * catalogs. Both rank by (tier, segment, name, ...) where the segment is a type bucket or level and
 * names are sorted inside each segment, so:
 *   - name-prefix tiers are one binary search per segment;
 *   - word-prefix rows come from per-word row lists (the words that start with q are a range of
 *     the sorted distinct words), substring rows from the rows of q's rarest character pair, when
 *     either holds few rows of the scope; otherwise from one native `indexOf` scan over the joined
 *     texts, which visits rows in rank order and stops once the page is full (matches are then
 *     common). Lists are also kept in (group, row) order, so a country reads only its own share
 *     of a list: a pair common worldwide but rare in the country still narrows its search;
 *   - scans look for q from its rarest character, so a q opening with a common letter (or the
 *     space of a word prefix) does not stop the native search at every occurrence of that letter.
 * Every operation works on a scope: all rows, or the rows of one group (a country), which have
 * their own joined texts so a country's scan never reads other countries' text.
 * Texts live only in the joined strings (no string per row), which keeps the heap small for GC.
 * Built once per release; queries allocate little beyond their results.
 */

/** Code point order (UTF-8 byte order, PostgreSQL's COLLATE "C"). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointDifference(x, y);
  }
  return a.length - b.length;
}

/** Difference of two differing UTF-16 code units in code point order. */
function codePointDifference(x: number, y: number): number {
  // UTF-16 puts surrogates (code points above U+FFFF) below U+E000–U+FFFF; code point order does not.
  if (x >= 0xd800 && y >= 0xd800) {
    x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
    y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
  }
  return x - y;
}

/** UTF-16 code unit order (JavaScript's `<`). */
const compareCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const SURROGATE = /[\ud800-\udfff]/;
/** The faster native comparison when it agrees with code point order on every given string. */
export function codePointComparatorFor(strings: Iterable<string>): (a: string, b: string) => number {
  for (const s of strings) if (SURROGATE.test(s)) return compareCodePoints;
  return compareCodeUnits;
}

/**
 * Stands between the fields of a search text (name, canonical name) as a word of its own. Folded
 * queries hold only letters, digits and single spaces, so no match (substring or word prefix) can
 * span two fields.
 */
export const FIELD_SEPARATOR = '|';

export interface TextIndexRows {
  /**
   * Search text of each row: words separated by single spaces, with a leading space; the row's
   * name is the `nameLengths[row]` characters after that space. Fields are apart by a
   * FIELD_SEPARATOR word. No newlines.
   */
  texts: readonly string[];
  nameLengths: Uint32Array;
  /** First row of each segment, plus the row count at the end (length = segments + 1). */
  segmentStarts: Int32Array;
  /** Group of each row (0..groupCount-1). */
  groups: Uint16Array;
  groupCount: number;
  /** Names are sorted by code point inside each segment (else by UTF-16 code unit). */
  codePointOrder: boolean;
}

export interface TextIndexOptions {
  /** GATHER_LIMIT unless given (tests use 0 and a large value to exercise both ways). */
  gatherLimit?: number;
  /** LISTED_PAIR_SHARE unless given. */
  listedPairShare?: number;
}

/** A contiguous run of positions; `rows` maps a position to its row (null: position = row). */
export interface Scope {
  /** The group whose rows these are, -1 for all rows. */
  group: number;
  rows: Int32Array | null;
  lo: number;
  hi: number;
  hay: string;
  /** Offset of each position's text in `hay` (one newline between texts; a sentinel at the end). */
  starts: Int32Array;
}

/** Row lists are merged only up to this many rows; beyond, a scan finds a full page sooner. */
const GATHER_LIMIT = 2048;
/**
 * Rows are listed for the character pairs held by at most this share of all rows. A more common
 * pair is common in nearly every country too, where a scan beats checking its rows (listLimitFor);
 * leaving those out keeps the lists to a few MB (1.7M rows on the full-size synthetic catalog).
 */
const LISTED_PAIR_SHARE = 1 / 16;
/** Rows of a group are merged from at most this many word lists; a shorter prefix is scanned for. */
const MAX_MERGED_WORDS = 256;
/** Character pairs are indexed for at most this many distinct characters (a pair table of 4 MB). */
const MAX_ALPHABET = 1023;

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

/** Last index in [low, high] whose start is <= offset (starts ascending). */
function entryAt(starts: Int32Array, offset: number, low: number, high: number): number {
  while (low < high) {
    const middle = (low + high + 1) >>> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * Everything a TextIndex holds, as plain data: what the constructor builds from rows, and what a
 * snapshot stores and gives back (see `TextIndex.state`).
 */
export interface TextIndexState {
  gatherLimit: number;
  listedPairRows: number;
  codePointOrder: boolean;
  groups: Uint16Array;
  nameLengths: Uint32Array;
  segmentStarts: Int32Array;
  /** All texts in row order, and where each starts. */
  hay: string;
  starts: Int32Array;
  /** The texts in group order (`byGroup`: position → row), where each starts, and each group's first position (+ the total). */
  groupedHay: string;
  groupedStarts: Int32Array;
  byGroup: Int32Array;
  groupStarts: Int32Array;
  frequency: Uint32Array;
  wordHay: string;
  wordStarts: Int32Array;
  postingStarts: Int32Array;
  postings: Int32Array;
  groupPostings: Int32Array;
  charIds: Uint16Array;
  pairWidth: number;
  pairCounts: Int32Array | null;
  pairStarts: Int32Array;
  pairRows: Int32Array;
}

export class TextIndex {
  readonly size: number;
  readonly gatherLimit: number;
  readonly global: Scope;
  private readonly groupScopes: Scope[];
  private readonly groups: Uint16Array;
  private readonly nameLengths: Uint32Array;
  private readonly segmentStarts: Int32Array;
  private readonly codePointOrder: boolean;
  /** How often each UTF-16 code unit occurs in the texts: scans anchor on a pattern's rarest one. */
  private readonly frequency: Uint32Array;
  /** Distinct words sorted by code unit, joined by newlines. */
  private readonly wordHay: string;
  private readonly wordStarts: Int32Array;
  /**
   * The rows holding each word: `postings[postingStarts[w]..postingStarts[w + 1]]` ascending, and
   * the same rows in `groupPostings` ordered by (group, row), so one group's share is a run.
   */
  private readonly postingStarts: Int32Array;
  private readonly postings: Int32Array;
  private readonly groupPostings: Int32Array;
  /**
   * Character pairs (only for alphabets of at most MAX_ALPHABET characters): the rows holding
   * each listed pair, ordered by (group, row). Pairs are keyed `charIds[a] * width + charIds[b]`.
   */
  private readonly charIds: Uint16Array;
  private readonly pairWidth: number;
  /** Rows holding each pair; listed when at most `listedPairRows`; null when pairs are not indexed. */
  private readonly pairCounts: Int32Array | null;
  private readonly listedPairRows: number;
  private readonly pairStarts: Int32Array;
  private readonly pairRows: Int32Array;
  /** What the index was made of (kept for `state`; the arrays are shared, not copied). */
  private readonly made: TextIndexState;

  /** Builds the index of `rows`, or takes over a state built before (a snapshot's). */
  constructor(source: TextIndexRows | TextIndexState, options: TextIndexOptions = {}) {
    const state = 'texts' in source ? buildTextIndex(source, options) : source;
    this.made = state;
    const n = (this.size = state.nameLengths.length);
    this.gatherLimit = state.gatherLimit;
    this.listedPairRows = state.listedPairRows;
    this.codePointOrder = state.codePointOrder;
    this.groups = state.groups;
    this.nameLengths = state.nameLengths;
    this.segmentStarts = state.segmentStarts;
    this.global = { group: -1, rows: null, lo: 0, hi: n, hay: state.hay, starts: state.starts };
    const { groupedHay: hay, groupedStarts: starts, byGroup: rows, groupStarts } = state;
    this.groupScopes = Array.from({ length: groupStarts.length - 1 }, (_, g) => ({
      group: g, rows, lo: groupStarts[g]!, hi: groupStarts[g + 1]!, hay, starts,
    }));
    this.frequency = state.frequency;
    this.wordHay = state.wordHay;
    this.wordStarts = state.wordStarts;
    this.postingStarts = state.postingStarts;
    this.postings = state.postings;
    this.groupPostings = state.groupPostings;
    this.charIds = state.charIds;
    this.pairWidth = state.pairWidth;
    this.pairCounts = state.pairCounts;
    this.pairStarts = state.pairStarts;
    this.pairRows = state.pairRows;
  }

  /** The index as plain data; `new TextIndex(state)` gives an index that answers the same. */
  get state(): TextIndexState {
    return this.made;
  }

  /** [from, to) of the rows of `scope` in a (group, row) ordered list. */
  private groupRun(list: Int32Array, from: number, to: number, group: number): [number, number] {
    if (group < 0) return [from, to];
    const firstAtLeast = (value: number) => {
      let low = from;
      let high = to;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (this.groups[list[middle]!]! < value) low = middle + 1;
        else high = middle;
      }
      return low;
    };
    return [firstAtLeast(group), firstAtLeast(group + 1)];
  }

  /**
   * Rows of `scope` (ascending) that may contain `pattern`: those holding its rarest character
   * pair in that scope, when they are at most `maxRows`; null when every pair is more common
   * (or the pattern is a single character, or pairs are not indexed). Callers check each row.
   */
  rowsWithRarePair(scope: Scope, pattern: string, maxRows = this.listLimitFor(scope)): Int32Array | null {
    const counts = this.pairCounts;
    if (counts === null || pattern.length < 2) return null;
    let best: [number, number] | null = null;
    for (let i = 0; i + 1 < pattern.length; i++) {
      const a = this.charIds[pattern.charCodeAt(i)]!;
      const b = this.charIds[pattern.charCodeAt(i + 1)]!;
      const key = a * this.pairWidth + b;
      // A character or pair no text holds: no row can contain the pattern.
      if (a === 0 || b === 0 || counts[key] === 0) return new Int32Array(0);
      if (counts[key]! > this.listedPairRows) continue;
      const run = this.groupRun(this.pairRows, this.pairStarts[key]!, this.pairStarts[key + 1]!, scope.group);
      if (best === null || run[1] - run[0] < best[1] - best[0]) best = run;
    }
    if (best === null || best[1] - best[0] > maxRows) return null;
    const rows = this.pairRows.subarray(best[0], best[1]);
    // Group lists are in row order already; all rows' lists are in group order.
    return scope.group < 0 ? rows.slice().sort() : rows;
  }

  /**
   * How many listed rows to check in place of scanning `scope`: within GATHER_LIMIT, and fewer
   * than reading the scope's text would cost (a row check costs about as much as 256 characters).
   */
  private listLimitFor(scope: Scope): number {
    const rows = scope.hi - scope.lo;
    if (rows === 0) return 0;
    const chars = scope.starts[scope.hi]! - scope.starts[scope.lo]!;
    return Math.min(this.gatherLimit, Math.floor(chars / 256));
  }

  groupScope(group: number): Scope {
    return this.groupScopes[group]!;
  }

  /** The row's text (leading space, words, no newline). */
  text(row: number): string {
    return this.global.hay.slice(this.global.starts[row]!, this.global.starts[row + 1]! - 1);
  }

  /** The row's name (its sort key inside the segment). */
  name(row: number): string {
    const start = this.global.starts[row]! + 1;
    return this.global.hay.slice(start, start + this.nameLengths[row]!);
  }

  textIncludes(row: number, pattern: string): boolean {
    return this.text(row).includes(pattern);
  }

  nameStartsWith(row: number, prefix: string): boolean {
    return this.nameLengths[row]! >= prefix.length && this.global.hay.startsWith(prefix, this.global.starts[row]! + 1);
  }

  /** Sign of name(row) compared with `value` in the index's name order, without copying the name. */
  compareName(row: number, value: string): number {
    const { hay } = this.global;
    const start = this.global.starts[row]! + 1;
    const length = this.nameLengths[row]!;
    const n = Math.min(length, value.length);
    for (let i = 0; i < n; i++) {
      const x = hay.charCodeAt(start + i);
      const y = value.charCodeAt(i);
      if (x !== y) return this.codePointOrder ? codePointDifference(x, y) : x - y;
    }
    return length - value.length;
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
    return [this.positionOf(scope, this.segmentStarts[segment]!), this.positionOf(scope, this.segmentStarts[segment + 1]!)];
  }

  /**
   * Positions in [from, to) (one segment of `scope`) whose name starts with `prefix`: [lo, equalEnd, hi),
   * names equal to the prefix first (no other name with that prefix sorts before it).
   */
  prefixPositions(scope: Scope, from: number, to: number, prefix: string): [number, number, number] {
    const firstWhere = (low: number, high: number, before: (row: number) => boolean) => {
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (before(this.rowAt(scope, middle))) low = middle + 1;
        else high = middle;
      }
      return low;
    };
    const lo = firstWhere(from, to, (row) => this.compareName(row, prefix) < 0);
    const equalEnd = firstWhere(lo, to, (row) => this.compareName(row, prefix) === 0);
    const hi = firstWhere(equalEnd, to, (row) => this.nameStartsWith(row, prefix));
    return [lo, equalEnd, hi];
  }

  /**
   * Where the native search should start matching `pattern`: its rarest code unit, but never the
   * last one of a longer pattern (the native search checks what follows the anchor; what precedes
   * it is checked here, once per occurrence of the rest).
   */
  private anchorOf(pattern: string): number {
    // Native checks after the anchor are cheap; each occurrence of the rest that fails here costs
    // a round trip. So move off the first character only for a much rarer one.
    let best = 0;
    for (let i = 1; i < pattern.length - 1; i++) if (this.frequency[pattern.charCodeAt(i)]! * 16 < this.frequency[pattern.charCodeAt(best)]!) best = i;
    return best;
  }

  /**
   * Calls `visit` with each position in [from, to) of `scope` whose text contains `pattern` (no
   * newline in it), in order, until it returns false. One native scan of the scope's joined texts.
   */
  scan(scope: Scope, pattern: string, from: number, to: number, visit: (position: number) => boolean): void {
    if (from >= to) return;
    const { starts } = scope;
    const base = starts[from]!;
    // A window of the joined texts bounds the native search to this range.
    const window = scope.hay.slice(base, starts[to]! - 1);
    const anchor = this.anchorOf(pattern);
    const needle = anchor === 0 ? pattern : pattern.slice(anchor);
    let position = from;
    let searchFrom = anchor;
    for (;;) {
      const at = window.indexOf(needle, searchFrom);
      if (at < 0) return;
      const occurrence = at - anchor;
      // Before the current row (an earlier row, or the part of the pattern before the anchor does not match): look further.
      if (occurrence < starts[position]! - base || (anchor > 0 && !window.startsWith(pattern, occurrence))) {
        searchFrom = at + 1;
        continue;
      }
      position = entryAt(starts, occurrence + base, position, to - 1);
      if (!visit(position)) return;
      position++;
      if (position >= to) return;
      searchFrom = starts[position]! - base + anchor;
    }
  }

  /** First word >= `value` (code unit order), compared in place. */
  private wordLowerBound(value: string, startsWith = false): number {
    const { wordHay, wordStarts } = this;
    let low = 0;
    let high = wordStarts.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const start = wordStarts[middle]!;
      const length = wordStarts[middle + 1]! - 1 - start;
      let order = 0;
      const n = Math.min(length, value.length);
      for (let i = 0; i < n && order === 0; i++) order = wordHay.charCodeAt(start + i) - value.charCodeAt(i);
      if (order === 0) order = startsWith && length >= value.length ? 0 : length - value.length;
      // startsWith: words with the prefix count as "before", so this finds the end of their run.
      if (order < 0 || (startsWith && order === 0)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Word range [lo, hi) of the words that start with `prefix`. */
  wordsWithPrefix(prefix: string): { lo: number; hi: number } {
    const lo = this.wordLowerBound(prefix);
    return { lo, hi: Math.max(lo, this.wordLowerBound(prefix, true)) };
  }

  /** Word range of exactly `word` (empty when absent). */
  exactWord(word: string): { lo: number; hi: number } {
    const lo = this.wordLowerBound(word);
    const start = this.wordStarts[lo];
    const hi = start !== undefined && lo < this.wordStarts.length - 1 && this.wordStarts[lo + 1]! - 1 - start === word.length && this.wordHay.startsWith(word, start) ? lo + 1 : lo;
    return { lo, hi };
  }

  /**
   * Rows of `scope` (ascending, distinct) holding any word of the range; null when that is more
   * than `maxRows` rows, or, in a group, more word lists than are worth merging.
   */
  rowsOfWords(scope: Scope, range: { lo: number; hi: number }, maxRows = this.gatherLimit): Int32Array | null {
    const { lo, hi } = range;
    if (scope.group < 0) {
      if (this.postingStarts[hi]! - this.postingStarts[lo]! > maxRows) return null;
      const gathered = this.postings.slice(this.postingStarts[lo]!, this.postingStarts[hi]!);
      if (hi - lo > 1) gathered.sort();
      return distinct(gathered);
    }
    if (hi - lo > MAX_MERGED_WORDS) return null;
    const runs: [number, number][] = [];
    let total = 0;
    for (let w = lo; w < hi; w++) {
      const run = this.groupRun(this.groupPostings, this.postingStarts[w]!, this.postingStarts[w + 1]!, scope.group);
      total += run[1] - run[0];
      if (total > maxRows) return null;
      if (run[1] > run[0]) runs.push(run);
    }
    const gathered = new Int32Array(total);
    let at = 0;
    for (const [from, to] of runs) {
      gathered.set(this.groupPostings.subarray(from, to), at);
      at += to - from;
    }
    if (runs.length > 1) gathered.sort();
    return distinct(gathered);
  }
}

function buildTextIndex(rows: TextIndexRows, options: TextIndexOptions): TextIndexState {
  const n = rows.texts.length;
  const global = joinTexts(rows.texts, null, n);
  const frequency = new Uint32Array(0x10000);
  for (let i = 0; i < global.hay.length; i++) frequency[global.hay.charCodeAt(i)]!++;

  // Rows by group, rank order kept inside each group (counting sort).
  const groupStarts = new Int32Array(rows.groupCount + 1);
  for (let r = 0; r < n; r++) groupStarts[rows.groups[r]! + 1]!++;
  for (let g = 0; g < rows.groupCount; g++) groupStarts[g + 1]! += groupStarts[g]!;
  const byGroup = new Int32Array(n);
  const fill = groupStarts.slice(0, rows.groupCount);
  for (let r = 0; r < n; r++) byGroup[fill[rows.groups[r]!]!++] = r;
  const grouped = joinTexts(rows.texts, byGroup, n);

  const words = indexWords(rows.texts, byGroup);
  const listedPairRows = Math.floor(n * (options.listedPairShare ?? LISTED_PAIR_SHARE));
  return {
    gatherLimit: options.gatherLimit ?? GATHER_LIMIT,
    listedPairRows,
    codePointOrder: rows.codePointOrder,
    groups: rows.groups,
    nameLengths: rows.nameLengths,
    segmentStarts: rows.segmentStarts,
    hay: global.hay,
    starts: global.starts,
    groupedHay: grouped.hay,
    groupedStarts: grouped.starts,
    byGroup,
    groupStarts,
    frequency,
    wordHay: words.hay,
    wordStarts: words.starts,
    postingStarts: words.postingStarts,
    postings: words.postings,
    groupPostings: words.groupPostings,
    ...indexPairs(rows.texts, byGroup, frequency, listedPairRows),
  };
}

/**
 * Word lists, built from flat (word, row) occurrences rather than a list per word: a few typed
 * arrays instead of a million small ones keeps the build's garbage (and the heap it grows) small.
 */
function indexWords(texts: readonly string[], byGroup: Int32Array) {
  const wordIds = new Map<string, number>();
  let lastRow: Int32Array = new Int32Array(1024).fill(-1);
  let occurrenceWords: Int32Array = new Int32Array(1 << 16);
  let occurrenceRows: Int32Array = new Int32Array(1 << 16);
  let count = 0;
  for (let r = 0; r < texts.length; r++) {
    const text = texts[r]!;
    let from = 1;
    while (from < text.length) {
      let to = text.indexOf(' ', from);
      if (to < 0) to = text.length;
      if (to > from && !(to - from === 1 && text[from] === FIELD_SEPARATOR)) {
        const word = text.slice(from, to);
        let id = wordIds.get(word);
        if (id === undefined) {
          wordIds.set(word, (id = wordIds.size));
          if (id >= lastRow.length) lastRow = grow(lastRow, -1);
        }
        if (lastRow[id] !== r) {
          lastRow[id] = r;
          if (count === occurrenceRows.length) {
            occurrenceWords = grow(occurrenceWords, 0);
            occurrenceRows = grow(occurrenceRows, 0);
          }
          occurrenceWords[count] = id;
          occurrenceRows[count++] = r;
        }
      }
      from = to + 1;
    }
  }
  const sorted = [...wordIds.keys()].sort(compareCodeUnits);
  const rankOf = new Int32Array(sorted.length);
  sorted.forEach((word, rank) => (rankOf[wordIds.get(word)!] = rank));
  wordIds.clear();
  const joined = joinTexts(sorted, null, sorted.length);
  sorted.length = 0;

  // Counting sort by word; occurrences arrive in row order, which each list keeps.
  const postingStarts = new Int32Array(rankOf.length + 1);
  for (let i = 0; i < count; i++) postingStarts[rankOf[occurrenceWords[i]!]! + 1]!++;
  for (let w = 0; w < rankOf.length; w++) postingStarts[w + 1]! += postingStarts[w]!;
  const postings = new Int32Array(count);
  const at = postingStarts.slice(0, -1);
  for (let i = 0; i < count; i++) postings[at[rankOf[occurrenceWords[i]!]!]!++] = occurrenceRows[i]!;
  // The same lists in (group, row) order: each row's position in group order sorts them.
  const groupPosition = new Int32Array(texts.length);
  byGroup.forEach((row, position) => (groupPosition[row] = position));
  const groupPostings = new Int32Array(count);
  for (let w = 0; w < rankOf.length; w++) {
    const list = groupPostings.subarray(postingStarts[w]!, postingStarts[w + 1]!);
    list.set(postings.subarray(postingStarts[w]!, postingStarts[w + 1]!));
    if (list.length > 1) sortByGroupOrder(list, groupPosition, byGroup);
  }
  return { hay: joined.hay, starts: joined.starts, postingStarts, postings, groupPostings };
}

function indexPairs(texts: readonly string[], byGroup: Int32Array, frequency: Uint32Array, listedPairRows: number) {
  const charIds = new Uint16Array(0x10000);
  let alphabet = 0;
  for (let c = 0; c < 0x10000; c++) if (frequency[c]! > 0 && c !== 10) charIds[c] = ++alphabet;
  if (alphabet > MAX_ALPHABET) return { charIds, pairWidth: 0, pairCounts: null, pairStarts: new Int32Array(1), pairRows: new Int32Array(0) };
  const width = alphabet + 1;
  const counts = new Int32Array(width * width);
  const seen = new Int32Array(width * width).fill(-1);
  // Rows in group order, so each pair's list comes out ordered by (group, row).
  const eachPair = (visit: (key: number, row: number) => void) => {
    for (let k = 0; k < byGroup.length; k++) {
      const r = byGroup[k]!;
      const text = texts[r]!;
      for (let i = 0; i + 1 < text.length; i++) {
        const key = charIds[text.charCodeAt(i)]! * width + charIds[text.charCodeAt(i + 1)]!;
        if (seen[key] !== r) {
          seen[key] = r;
          visit(key, r);
        }
      }
    }
  };
  eachPair((key) => counts[key]!++);
  const starts = new Int32Array(width * width + 1);
  for (let key = 0; key < width * width; key++) starts[key + 1] = starts[key]! + (counts[key]! <= listedPairRows ? counts[key]! : 0);
  const pairRows = new Int32Array(starts[width * width]!);
  const at = starts.slice(0, -1);
  seen.fill(-1);
  eachPair((key, row) => {
    if (counts[key]! <= listedPairRows) pairRows[at[key]!++] = row;
  });
  return { charIds, pairWidth: width, pairCounts: counts, pairStarts: starts, pairRows };
}

/** Doubles a typed array's length, new slots set to `fill`. */
function grow(array: Int32Array, fill: number): Int32Array {
  const grown = new Int32Array(array.length * 2).fill(fill);
  grown.set(array);
  return grown;
}

/** Puts rows in group order: by position (`positionOf`), mapped back through `rowAt`. */
function sortByGroupOrder(list: Int32Array, positionOf: Int32Array, rowAt: Int32Array): void {
  for (let i = 0; i < list.length; i++) list[i] = positionOf[list[i]!]!;
  list.sort();
  for (let i = 0; i < list.length; i++) list[i] = rowAt[list[i]!]!;
}

function distinct(sorted: Int32Array): Int32Array {
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[kept++] = sorted[i]!;
  return sorted.subarray(0, kept);
}
