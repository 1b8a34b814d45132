import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointComparatorFor, compareCodePoints, TextIndex, type Scope } from '../../reference/locations/text-index.js';

const codePointOrder = (a: string, b: string) => {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};
const sign = (n: number) => Math.sign(n);
// Letters on both sides of the surrogate range, where UTF-16 and code point order disagree.
const unit = fc.constantFrom('a', 'b', ' ', '\uffee', '\ue000', '𝔞', '𝔟', 'é');
const text = fc.string({ unit, maxLength: 6 });

describe('code point order', () => {
  it('orders as the code points do (UTF-8 bytes, COLLATE "C")', () => {
    fc.assert(fc.property(text, text, (a, b) => {
      expect(sign(compareCodePoints(a, b))).toBe(sign(codePointOrder(a, b)));
    }));
    expect(compareCodePoints('\uffee', '𝔞')).toBeLessThan(0);
    expect('\uffee' < '𝔞').toBe(false);
    expect(codePointComparatorFor(['abc', 'é'])).not.toBe(compareCodePoints);
    expect(codePointComparatorFor(['abc', '𝔞'])).toBe(compareCodePoints);
  });
});

describe('TextIndex', () => {
  const rowsOf = fc
    .array(fc.record({ segment: fc.integer({ min: 0, max: 2 }), group: fc.integer({ min: 0, max: 2 }), words: fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'n', '𝔞'), minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }) }), { maxLength: 40 })
    .map((drafts) => drafts.map((d) => ({ ...d, name: d.words.join(' ') })).sort((x, y) => x.segment - y.segment || compareCodePoints(x.name, y.name)));

  const build = (rows: { segment: number; group: number; name: string }[]) => {
    const segmentStarts = new Int32Array(4).fill(rows.length);
    for (let r = rows.length - 1; r >= 0; r--) segmentStarts[rows[r]!.segment] = r;
    for (let s = 2; s >= 0; s--) segmentStarts[s] = Math.min(segmentStarts[s]!, segmentStarts[s + 1]!);
    return new TextIndex({
      texts: rows.map((row) => ` ${row.name}`), nameLengths: Uint32Array.from(rows, (row) => row.name.length), segmentStarts,
      groups: Uint16Array.from(rows.map((row) => row.group)), groupCount: 3, codePointOrder: true,
    }, { gatherLimit: 3, listedPairShare: 1 });
  };
  const positions = (index: TextIndex, scope: Scope, from: number, to: number) => Array.from({ length: to - from }, (_, i) => index.rowAt(scope, from + i));

  it('finds name prefixes, scans and word lists exactly as a row-by-row check does, in every scope', () => {
    fc.assert(
      fc.property(rowsOf, fc.string({ unit: fc.constantFrom('a', 'b', 'n', ' ', '𝔞'), minLength: 1, maxLength: 3 }), (rows, q) => {
        const index = build(rows);
        for (const [scope, member] of [[index.global, () => true], ...[0, 1, 2].map((g) => [index.groupScope(g), (row: { group: number }) => row.group === g] as const)] as const) {
          for (let segment = 0; segment < 3; segment++) {
            const inSegment = rows.map((row, r) => ({ row, r })).filter(({ row }) => row.segment === segment && member(row));
            const [from, to] = index.segmentPositions(scope, segment);
            expect(positions(index, scope, from, to)).toEqual(inSegment.map(({ r }) => r));
            const [lo, equalEnd, hi] = index.prefixPositions(scope, from, to, q);
            expect(positions(index, scope, lo, equalEnd)).toEqual(inSegment.filter(({ row }) => row.name === q).map(({ r }) => r));
            expect(positions(index, scope, lo, hi)).toEqual(inSegment.filter(({ row }) => row.name.startsWith(q)).map(({ r }) => r));
            const scanned: number[] = [];
            index.scan(scope, q, from, to, (k) => scanned.push(index.rowAt(scope, k)) > 0);
            expect(scanned).toEqual(inSegment.filter(({ row }) => ` ${row.name}`.includes(q)).map(({ r }) => r));
          }
        }
        const words = index.wordsWithPrefix(q);
        const exact = index.exactWord(q);
        for (const [scope, member] of [[index.global, () => true], ...[0, 1, 2].map((g) => [index.groupScope(g), (row: { group: number }) => row.group === g] as const)] as const) {
          const holding = (test: (row: (typeof rows)[number]) => boolean) => rows.flatMap((row, r) => (member(row) && test(row) ? [r] : []));
          // Unbounded: exactly the scope's rows, ascending.
          expect([...index.rowsOfWords(scope, words, Infinity)!]).toEqual(holding((row) => row.words.some((w) => w.startsWith(q))));
          expect([...index.rowsOfWords(scope, exact, Infinity)!]).toEqual(holding((row) => row.words.includes(q)));
          // Bounded by the gather limit (3): a list only when the word lists hold that few rows of the scope.
          const bounded = index.rowsOfWords(scope, words);
          const prefixed = [...new Set(rows.flatMap((row) => row.words.filter((w) => w.startsWith(q))))];
          const listed = prefixed.reduce((sum, word) => sum + holding((row) => row.words.includes(word)).length, 0);
          if (bounded === null) expect(listed).toBeGreaterThan(3);
          else expect([...bounded]).toEqual(holding((row) => row.words.some((w) => w.startsWith(q))));

          const containing = holding((row) => ` ${row.name}`.includes(q));
          for (const maxRows of [Infinity, 3]) {
            const rare = index.rowsWithRarePair(scope, q, maxRows);
            if (rare !== null) {
              // Every row of the scope holding q is among them, ascending, and no row of another scope.
              expect([...rare].filter((r) => ` ${rows[r]!.name}`.includes(q))).toEqual(containing);
              expect([...rare]).toEqual([...rare].sort((x, y) => x - y));
              expect([...rare].every((r) => member(rows[r]!))).toBe(true);
              expect(rare.length).toBeLessThanOrEqual(maxRows);
            } else {
              // Only for a single character, or when every pair of q is held by more than maxRows rows of the scope.
              expect(q.length === 1 || maxRows === 3).toBe(true);
              for (let i = 0; i + 1 < q.length; i++) expect(holding((row) => ` ${row.name}`.includes(q.slice(i, i + 2))).length).toBeGreaterThan(3);
            }
          }
        }
        rows.forEach((row, r) => {
          expect(index.name(r)).toBe(row.name);
          expect(Math.sign(index.compareName(r, q))).toBe(Math.sign(compareCodePoints(row.name, q)));
          expect(index.nameStartsWith(r, q)).toBe(row.name.startsWith(q));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('lists only the pairs held by at most the listed share of rows, and still knows which pairs no row holds', () => {
    const names = ['ab', 'ab', 'ab', 'ba'];
    const index = new TextIndex({
      texts: names.map((name) => ` ${name}`), nameLengths: Uint32Array.from(names, (name) => name.length), segmentStarts: Int32Array.from([0, 4]),
      groups: new Uint16Array(4), groupCount: 1, codePointOrder: true,
    }, { listedPairShare: 0.5 });
    // "ab" is held by 3 of 4 rows: not listed, so no list narrows the search.
    expect(index.rowsWithRarePair(index.global, 'ab', Infinity)).toBeNull();
    // "ba" by one row: listed.
    expect([...index.rowsWithRarePair(index.global, 'ba', Infinity)!]).toEqual([3]);
    // "aba" holds both: the listed one narrows it.
    expect([...index.rowsWithRarePair(index.global, 'aba', Infinity)!]).toEqual([3]);
    // No row holds "bb".
    expect([...index.rowsWithRarePair(index.global, 'bb', Infinity)!]).toEqual([]);
  });
});
