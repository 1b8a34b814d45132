import { foldSpecialLetters } from '../special-letters.js';
import { FIELD_SEPARATOR } from '../text-index.js';

/**
 * Search keys shared by the loader and the queries, so both sides fold text the same way:
 * lower case, accents removed (NFD, combining marks dropped), the letters decomposition leaves
 * alone folded as LEGACY folds them (special-letters.ts: "Łódź" → "lodz"), every run of
 * characters that is not a letter or digit becomes one space, trimmed. "São Paulo, SP" →
 * "sao paulo sp".
 */
export function normalizeSearchText(text: string): string {
  return foldSpecialLetters(text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase())
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The space-delimited haystack for word-prefix and substring matching: a leading space makes
 * "word starts with q" the pattern `% q%`; the separator keeps a match inside one field.
 */
export function searchHaystack(name: string, canonicalName: string): string {
  return ` ${normalizeSearchText(name)} ${FIELD_SEPARATOR} ${normalizeSearchText(canonicalName)} `;
}

/**
 * The smallest string greater than every string that starts with `prefix` (in code point order,
 * which is the byte order of UTF-8 under COLLATE "C"): `name >= prefix AND name < upper`.
 */
export function prefixUpperBound(prefix: string): string {
  const chars = [...prefix];
  const last = chars.pop();
  if (last === undefined) throw new Error('empty prefix');
  return chars.join('') + String.fromCodePoint(last.codePointAt(0)! + 1);
}
