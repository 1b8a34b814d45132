import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANONICAL_UUID, isCanonicalUuid } from '../../platform/ids/uuid-text.js';

describe('isCanonicalUuid', () => {
  it('agrees with the canonical UUID pattern on UUIDs, their near misses and any text (property)', () => {
    // A UUID with one character replaced: by anything, by the same letter uppercase, or by a
    // character whose low byte is a hex digit or the dash (U+0161 ends in 0x61, 'a').
    const nearMiss = fc.tuple(fc.uuid(), fc.nat(35), fc.oneof(fc.string({ minLength: 1, maxLength: 1, unit: 'binary' }), fc.constantFrom('A', 'F', 'g', '\u0161', '\u0130', '\u012d', '-', '0')))
      .map(([id, at, character]) => id.slice(0, at) + character + id.slice(at + 1));
    const text = fc.oneof(fc.uuid(), fc.uuid().map((id) => id.toUpperCase()), nearMiss, fc.string(), fc.uuid().map((id) => `${id} `));
    fc.assert(
      fc.property(text, (candidate) => {
        expect(isCanonicalUuid(candidate)).toBe(CANONICAL_UUID.test(candidate));
      }),
      { numRuns: 5000 },
    );
  });

  it('takes lowercase hexadecimal 8-4-4-4-12 only', () => {
    expect(isCanonicalUuid('0192f3a0-0000-7000-8000-00000000abcd')).toBe(true);
    for (const refused of ['0192F3A0-0000-7000-8000-00000000ABCD', '0192f3a0-0000-7000-8000-00000000abc', '0192f3a000000-7000-8000-00000000abcd', '{0192f3a0-0000-7000-8000-00000000abc}', '0192f3a0-0000-7000-8000-00000000abc\u0161']) {
      expect(isCanonicalUuid(refused)).toBe(false);
    }
  });
});
