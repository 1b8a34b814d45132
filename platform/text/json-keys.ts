import { fieldPath } from './field-path.js';

/** Where the walk is: in an object (its keys so far, the current one) or in an array (the current position). */
type Frame = { keys: Set<string>; key?: string } | { index: number };

/**
 * Where the first object of this JSON text names a key twice (`context.intent`, `[0].a`), or
 * undefined. JSON.parse keeps a repeated key's last value without a word; where a body is an
 * identity (a postback's event_id, order_id) or an operator's input, two values for one field are
 * an ambiguity to refuse, not to settle. The text must already be valid JSON (JSON.parse accepted
 * it): only strings, nesting and commas are tracked. Keys are compared decoded (`"a"` and
 * `"\u0061"` are one key).
 */
export function repeatedKey(json: string): string | undefined {
  const frames: Frame[] = [];
  let index = 0;
  while (index < json.length) {
    const character = json.charCodeAt(index);
    const top = frames[frames.length - 1];
    if (character === QUOTE) {
      const end = endOfString(json, index);
      // A string in an object followed by ':' is one of its keys.
      if (top && 'keys' in top && json.charCodeAt(afterWhitespace(json, end)) === COLON) {
        const key = JSON.parse(json.slice(index, end)) as string;
        top.key = key;
        if (top.keys.has(key)) return fieldPath(frames.map((frame) => ('keys' in frame ? frame.key! : frame.index)));
        top.keys.add(key);
      }
      index = end;
      continue;
    }
    if (character === OPEN_BRACE) frames.push({ keys: new Set() });
    else if (character === OPEN_BRACKET) frames.push({ index: 0 });
    else if (character === CLOSE_BRACE || character === CLOSE_BRACKET) frames.pop();
    else if (character === COMMA && top && 'index' in top) top.index += 1;
    index += 1;
  }
  return undefined;
}

const [QUOTE, COLON, COMMA, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = [...'":,\\{}[]'].map((character) => character.charCodeAt(0));

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
