import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANONICAL_UUID } from '../../platform/ids/uuid-text.js';
import { readUuidWords, uuidWordsFromText, writeUuidText } from '../../platform/ids/uuid-words.js';

const nearUuid = fc.oneof(
  fc.uuid().map((id) => id.toLowerCase()),
  fc.uuid(),
  fc.tuple(fc.uuid().map((id) => id.toLowerCase()), fc.nat(35), fc.constantFrom('-', 'g', 'F', '0', ' ', '"', 'é', '\u0130')).map(([id, at, character]) => id.slice(0, at) + character + id.slice(at + 1)),
  fc.string({ minLength: 36, maxLength: 36 }),
);

describe('UUID words', () => {
  it('reads exactly the canonical UUIDs, from bytes and from text alike, as the same words (property)', () => {
    fc.assert(
      fc.property(nearUuid, (text) => {
        const bytes = Buffer.from(`"${text}"`, 'utf8');
        const [fromBytes, fromText] = [new Int32Array(4), new Int32Array(4)];
        const canonical = CANONICAL_UUID.test(text);
        expect(readUuidWords(bytes, 1, fromBytes, 0) && bytes.length === 38).toBe(canonical);
        expect(uuidWordsFromText(text, fromText, 0)).toBe(canonical);
        if (canonical) {
          expect([...fromBytes]).toEqual([...fromText]);
          // The words are the 32 digits in order.
          expect([...fromText].map((word) => (word >>> 0).toString(16).padStart(8, '0')).join('')).toBe(text.replaceAll('-', ''));
          // And are written back as the same text.
          const written = Buffer.alloc(40, '#');
          expect(writeUuidText(fromText, 0, new DataView(written.buffer, written.byteOffset, written.length), 2)).toBe(38);
          expect(written.toString('latin1')).toBe(`##${text}##`);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('reads no UUID running past the end of the bytes', () => {
    const id = '0190a6e0-ef9a-70ea-a6c7-41aaa878f145';
    expect(readUuidWords(Buffer.from(id.slice(0, 35)), 0, new Int32Array(4), 0)).toBe(false);
    expect(readUuidWords(Buffer.from(id), 0, new Int32Array(4), 0)).toBe(true);
  });
});
