/**
 * The first key an object in this JSON text names twice at its top level, or undefined. JSON.parse
 * keeps a repeated key's last value without a word; where a body is an identity (a postback's
 * event_id, order_id), two values for one field are an ambiguity to refuse, not to settle.
 * The text must already be valid JSON (JSON.parse accepted it): only strings and nesting are
 * tracked. Keys are compared decoded (`"a"` and `"\u0061"` are one key).
 */
export function repeatedTopLevelKey(json: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  let index = 0;
  while (index < json.length) {
    const character = json.charCodeAt(index);
    if (character === QUOTE) {
      const end = endOfString(json, index);
      // A string at depth 1 followed by ':' is a key of the top-level object.
      if (depth === 1 && json.charCodeAt(afterWhitespace(json, end)) === COLON) {
        const key = JSON.parse(json.slice(index, end)) as string;
        if (seen.has(key)) return key;
        seen.add(key);
      }
      index = end;
      continue;
    }
    if (character === OPEN_BRACE || character === OPEN_BRACKET) depth += 1;
    else if (character === CLOSE_BRACE || character === CLOSE_BRACKET) depth -= 1;
    index += 1;
  }
  return undefined;
}

const [QUOTE, COLON, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = [...'":\\{}[]'].map((character) => character.charCodeAt(0));

/** The index just past the closing quote of the string opening at `start` (searched for, not walked: bodies are mostly strings). */
function endOfString(json: string, start: number): number {
  let quote = json.indexOf('"', start + 1);
  while (isEscaped(json, quote)) quote = json.indexOf('"', quote + 1);
  return quote + 1;
}

/** Whether the quote at `at` follows an odd run of backslashes. */
function isEscaped(json: string, at: number): boolean {
  let backslashes = 0;
  while (json.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes += 1;
  return backslashes % 2 === 1;
}

/** The index of the first character at or after `index` that is not JSON whitespace. */
function afterWhitespace(json: string, index: number): number {
  let at = index;
  while (at < json.length && ' \t\n\r'.includes(json[at]!)) at += 1;
  return at;
}
