import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atMostCharacters, characterCount } from '../../platform/text/character-count.js';

describe('characterCount', () => {
  it('counts code points, as JSON Schema lengths do, not UTF-16 units', () => {
    expect(characterCount('')).toBe(0);
    expect(characterCount('abc')).toBe(3);
    expect(characterCount('😀'.repeat(51))).toBe(51);
    expect(characterCount('é😀x')).toBe(3);
  });

  it('counts a lone surrogate as one character, wherever it stands', () => {
    expect(characterCount('\ud83d')).toBe(1);
    expect(characterCount('a\ude00')).toBe(2);
    expect(characterCount('\ude00\ud83d')).toBe(2);
  });

  it('agrees with the string iterator for any text, surrogates of every kind included', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('\ud83d', '\ude00', '😀', 'é'), fc.string({ unit: 'grapheme', maxLength: 1 }), fc.string({ unit: 'binary', maxLength: 1 })) }), (value) => {
        expect(characterCount(value)).toBe([...value].length);
      }),
    );
  });

  it('atMostCharacters takes 100 emoji at 100 and refuses 101', () => {
    expect(atMostCharacters('😀'.repeat(100), 100)).toBe(true);
    expect(atMostCharacters('😀'.repeat(101), 100)).toBe(false);
    expect(atMostCharacters('a'.repeat(101), 100)).toBe(false);
  });
});
