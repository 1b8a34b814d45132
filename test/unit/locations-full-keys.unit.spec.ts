import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constraintsKey, CursorError, decodeCursor, encodeCursor } from '../../reference/locations/full/cursor.js';
import { normalizeSearchText, prefixUpperBound, searchHaystack } from '../../reference/locations/full/search-text.js';
import { foldText } from '../../reference/locations/legacy/normalize.js';
import { foldSpecialLetters, SPECIAL_LETTERS } from '../../reference/locations/special-letters.js';
import { bucketsForTypes, typeBucket } from '../../reference/locations/full/type-buckets.js';

describe('search text', () => {
  it('folds the special letters as LEGACY does, and a key folded without them is refolded by mapping them alone (the migration)', () => {
    const withoutSpecialLetters = (text: string) => text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    const special = fc.constantFrom(...Object.keys(SPECIAL_LETTERS), ...Object.keys(SPECIAL_LETTERS).map((letter) => letter.toUpperCase()), 'ẞ', 'İ');
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(special, fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })) }), (text) => {
        expect(normalizeSearchText(text)).toBe(foldSpecialLetters(withoutSpecialLetters(text)));
        for (const letter of Object.keys(SPECIAL_LETTERS)) expect(normalizeSearchText(text)).not.toContain(letter);
      }),
      { numRuns: 500 },
    );
    for (const letter of Object.keys(SPECIAL_LETTERS)) expect(normalizeSearchText(letter)).toBe(foldText(letter));
  });

  it('folds case, accents and punctuation', () => {
    expect(normalizeSearchText('São Paulo, SP')).toBe('sao paulo sp');
    expect(normalizeSearchText('Fenway–Kenmore')).toBe('fenway kenmore');
    expect(normalizeSearchText('  Baden-Württemberg  ')).toBe('baden wurttemberg');
    expect(normalizeSearchText("Saint Helena, Ascension and Tristan da Cunha")).toBe('saint helena ascension and tristan da cunha');
    expect(normalizeSearchText('!!')).toBe('');
    expect(['Łódź', 'Gießen', 'GIEẞEN', 'Ærø', 'Þórshöfn', 'Đakovo', 'Œuvre', 'Ħamrun'].map(normalizeSearchText)).toEqual(['lodz', 'giessen', 'giessen', 'aero', 'thorshofn', 'dakovo', 'oeuvre', 'hamrun']);
    expect(searchHaystack('Alicante', 'Province of Alicante,Valencia,Spain')).toBe(' alicante | province of alicante valencia spain ');
  });

  it('bounds every string that starts with a prefix', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), (prefix, rest) => {
        const upper = prefixUpperBound(prefix);
        const text = prefix + rest;
        expect(text >= prefix).toBe(true);
        expect(Buffer.compare(Buffer.from(text), Buffer.from(upper))).toBe(-1);
      }),
    );
  });
});

describe('type buckets', () => {
  it('sorts broad types before narrow ones and keeps unknown types last', () => {
    expect(['Country', 'State', 'County', 'City', 'Neighborhood', 'Postal Code', 'Ward'].map(typeBucket)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(bucketsForTypes(['Postal Code', 'City', 'Town'])).toEqual([3, 5, 6]);
  });
});

describe('cursors', () => {
  const secret = 'a'.repeat(64);
  const key = constraintsKey({ q: 'cal', country: null, targetTypes: null, parentId: null });
  const position = { tier: 2, bucket: 3, name: 'caleta olivia', id: '1000134' };

  it('round-trips a position', () => {
    expect(decodeCursor(secret, 1, key, encodeCursor(secret, 1, key, position))).toEqual(position);
  });

  it('is bound to the release and the constraints, and signed', () => {
    const cursor = encodeCursor(secret, 1, key, position);
    const problem = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return (error as CursorError).problem;
      }
      return 'accepted';
    };
    expect(problem(() => decodeCursor(secret, 1, constraintsKey({ q: 'cali', country: null, targetTypes: null, parentId: null }), cursor))).toBe('other-constraints');
    expect(problem(() => decodeCursor('b'.repeat(64), 2, key, cursor))).toBe('other-release');
    expect(problem(() => decodeCursor(secret, 1, key, cursor.replace(/^./, (c) => (c === 'e' ? 'f' : 'e'))))).toBe('malformed');
    expect(problem(() => decodeCursor(secret, 1, key, 'not a cursor'))).toBe('malformed');
  });

  it('hashes constraints independently of key order', () => {
    expect(constraintsKey({ a: 1, b: null })).toBe(constraintsKey({ b: null, a: 1 }));
    expect(constraintsKey({ a: 1, b: null })).not.toBe(constraintsKey({ a: 1, b: 'x' }));
  });
});
