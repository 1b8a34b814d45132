import { isCanonicalUuid } from './uuid-text.js';

/**
 * A canonical UUID as four 32-bit words (its 32 hexadecimal digits in order, dashes left out), so
 * that ids are compared as four integers rather than 36 characters. A request's ids are turned
 * into words once, straight from the body's bytes where it can be (a string's characters cost
 * several times more to read one by one than a byte array's).
 */
export const UUID_WORDS = 4;
export const UUID_TEXT_LENGTH = 36;

/** Where each of the 32 digits is in the text (the dashes are at 8, 13, 18 and 23). */
const DIGIT_AT = Int32Array.from({ length: 32 }, (_, digit) => digit + (digit >= 8 ? 1 : 0) + (digit >= 12 ? 1 : 0) + (digit >= 16 ? 1 : 0) + (digit >= 20 ? 1 : 0));
const NOT_A_DIGIT = 16;
/** A byte's value as a lowercase hexadecimal digit, or NOT_A_DIGIT. */
const DIGIT_VALUE = Uint8Array.from({ length: 256 }, (_, code) => (code >= 0x30 && code <= 0x39 ? code - 0x30 : code >= 0x61 && code <= 0x66 ? code - 0x61 + 10 : NOT_A_DIGIT));
const DASH = 0x2d;

/**
 * Reads the canonical UUID whose text starts at `start` in `bytes` into `into` at `at` (four
 * words); false when the 36 bytes there are not one (the words are then meaningless). Checked
 * without a branch per byte: random hexadecimal defeats the branch predictor.
 */
export function readUuidWords(bytes: Uint8Array, start: number, into: Int32Array, at: number): boolean {
  if (start + UUID_TEXT_LENGTH > bytes.length) return false;
  const dashes = (bytes[start + 8]! ^ DASH) | (bytes[start + 13]! ^ DASH) | (bytes[start + 18]! ^ DASH) | (bytes[start + 23]! ^ DASH);
  let digits = 0;
  for (let word = 0; word < UUID_WORDS; word += 1) {
    let value = 0;
    for (let digit = word * 8; digit < word * 8 + 8; digit += 1) {
      const nibble = DIGIT_VALUE[bytes[start + DIGIT_AT[digit]!]!]!;
      digits |= nibble;
      value = (value << 4) | (nibble & 15);
    }
    into[at + word] = value;
  }
  return dashes === 0 && (digits & NOT_A_DIGIT) === 0;
}

/** The words of `id` into `into` at `at`; false (nothing written) when `id` is not a canonical UUID. */
export function uuidWordsFromText(id: string, into: Int32Array, at: number): boolean {
  if (!isCanonicalUuid(id)) return false;
  for (let word = 0; word < UUID_WORDS; word += 1) {
    let value = 0;
    for (let digit = word * 8; digit < word * 8 + 8; digit += 1) value = (value << 4) | (DIGIT_VALUE[id.charCodeAt(DIGIT_AT[digit]!)]! & 15);
    into[at + word] = value;
  }
  return true;
}

/** Two lowercase hexadecimal digits of each byte value, as one little-endian 16-bit write puts them, first digit first. */
const HEX_PAIRS = Uint16Array.from({ length: 256 }, (_, byte) => {
  const digits = byte.toString(16).padStart(2, '0');
  return digits.charCodeAt(0) | (digits.charCodeAt(1) << 8);
});
/** Where each word's first digit is in the text: 8-4-4-4-12, so words 1 and 2 hold a dash between their halves. */
const WORD_AT = [0, 9, 19, 28];
const DASH_AT = [8, 13, 18, 23];

/** Writes the canonical text of the UUID whose words are at `at` in `words` into `target` at `offset`; answers the offset past it. */
export function writeUuidText(words: Int32Array, at: number, target: DataView, offset: number): number {
  for (let word = 0; word < UUID_WORDS; word += 1) {
    const value = words[at + word]!;
    const start = offset + WORD_AT[word]!;
    const gap = word === 1 || word === 2 ? 1 : 0;
    target.setUint16(start, HEX_PAIRS[value >>> 24]!, true);
    target.setUint16(start + 2, HEX_PAIRS[(value >>> 16) & 0xff]!, true);
    target.setUint16(start + 4 + gap, HEX_PAIRS[(value >>> 8) & 0xff]!, true);
    target.setUint16(start + 6 + gap, HEX_PAIRS[value & 0xff]!, true);
  }
  for (const dash of DASH_AT) target.setUint8(offset + dash, DASH);
  return offset + UUID_TEXT_LENGTH;
}
