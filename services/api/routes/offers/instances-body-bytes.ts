import { readUuidWords, UUID_TEXT_LENGTH, UUID_WORDS } from '../../../../platform/ids/uuid-words.js';
import { RequestedIds } from './requested-ids.js';

/**
 * The instance route's usual body read straight from its bytes: `{"offer_instance_ids":[…]}`
 * holding 1 to 100 canonical (lowercase) UUIDs, JSON whitespace anywhere between tokens and
 * nothing else. Decoding, JSON.parse and the parsed list's checks cost several times what the
 * lookup of those ids does; a body in this shape means exactly what those steps would make of it
 * (the same ids, duplicates removed keeping the first). Anything else (another field, an escape,
 * an uppercase id, a BOM, an empty or over-long list) is undefined here and read the general way,
 * which also gives every refusal its message.
 */
const FIELD = Buffer.from('"offer_instance_ids"', 'latin1');
const MAX_IDS = 100;

const [QUOTE, COMMA, COLON, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = [0x22, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d];

/** Past JSON whitespace (space, tab, line feed, carriage return) from `at`. */
function skipSpace(bytes: Uint8Array, at: number): number {
  while (at < bytes.length) {
    const byte = bytes[at]!;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) break;
    at += 1;
  }
  return at;
}

/** The ids kept so far, by slot (-1: free); over twice the most ids, so a probe stays short. */
const SEEN_MASK = 255;
const seen = new Int32Array(SEEN_MASK + 1);
/** The words and text start of each id kept, in order; the next id is read in after them. */
const words = new Int32Array((MAX_IDS + 1) * UUID_WORDS);
const starts = new Int32Array(MAX_IDS);

/** Whether the id kept at `kept` has the words of the one just read (at `next`). */
const sameWords = (kept: number, next: number) =>
  words[kept] === words[next] && words[kept + 1] === words[next + 1] && words[kept + 2] === words[next + 2] && words[kept + 3] === words[next + 3];

export function readCanonicalIdList(bytes: Buffer): RequestedIds | undefined {
  let at = skipSpace(bytes, 0);
  if (bytes[at] !== OPEN_BRACE) return undefined;
  at = skipSpace(bytes, at + 1);
  if (at + FIELD.length > bytes.length || FIELD.compare(bytes, at, at + FIELD.length) !== 0) return undefined;
  at = skipSpace(bytes, at + FIELD.length);
  if (bytes[at] !== COLON) return undefined;
  at = skipSpace(bytes, at + 1);
  if (bytes[at] !== OPEN_BRACKET) return undefined;
  at = skipSpace(bytes, at + 1);
  seen.fill(-1);
  let items = 0;
  let kept = 0;
  for (;;) {
    const start = at + 1;
    const next = kept * UUID_WORDS;
    if (bytes[at] !== QUOTE || !readUuidWords(bytes, start, words, next) || bytes[start + UUID_TEXT_LENGTH] !== QUOTE) return undefined;
    items += 1;
    if (items > MAX_IDS) return undefined;
    // Open addressing on the id's last word (random in a UUID).
    let slot = Math.imul(words[next + 3]!, 0x9e3779b1) >>> 24;
    while (seen[slot] !== -1 && !sameWords(seen[slot]! * UUID_WORDS, next)) slot = (slot + 1) & SEEN_MASK;
    if (seen[slot] === -1) {
      seen[slot] = kept;
      starts[kept] = start;
      kept += 1;
    }
    at = skipSpace(bytes, start + UUID_TEXT_LENGTH + 1);
    if (bytes[at] === COMMA) {
      at = skipSpace(bytes, at + 1);
      continue;
    }
    if (bytes[at] !== CLOSE_BRACKET) return undefined;
    break;
  }
  at = skipSpace(bytes, at + 1);
  if (bytes[at] !== CLOSE_BRACE || skipSpace(bytes, at + 1) !== bytes.length) return undefined;
  return RequestedIds.read(bytes, starts.slice(0, kept), words.slice(0, kept * UUID_WORDS));
}
