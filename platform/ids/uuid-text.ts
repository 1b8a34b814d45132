/** A canonical UUID: lowercase hexadecimal 8-4-4-4-12, nothing around it (no braces, no urn:uuid:). */
export const CANONICAL_UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export const CANONICAL_UUID = new RegExp(CANONICAL_UUID_PATTERN);

/** Any hexadecimal 8-4-4-4-12 UUID in either case, nothing around it: what a route reads before lowercasing it. */
export const ANY_CASE_UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const ANY_CASE_UUID = new RegExp(ANY_CASE_UUID_PATTERN);

/** What each character of a canonical UUID is: 1 a lowercase hexadecimal digit, 2 the dash. */
const CANONICAL_SHAPE = Uint8Array.from('xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx', (character) => (character === '-' ? 2 : 1));
/** The same classes of every character code below 256 (0: neither). */
const CHARACTER_CLASS = Uint8Array.from({ length: 256 }, (_, code) => (code === 0x2d ? 2 : /[0-9a-f]/.test(String.fromCharCode(code)) ? 1 : 0));

/**
 * CANONICAL_UUID.test without a branch per character: random hexadecimal defeats the branch
 * predictor of a regular expression's (or a loop's) digit-or-letter test, and the instance
 * route checks up to 100 ids per request.
 */
export function isCanonicalUuid(text: string): boolean {
  if (text.length !== 36) return false;
  let mismatch = 0;
  for (let index = 0; index < 36; index += 1) {
    const code = text.charCodeAt(index);
    mismatch |= (code >> 8) | (CHARACTER_CLASS[code & 0xff]! ^ CANONICAL_SHAPE[index]!);
  }
  return mismatch === 0;
}
