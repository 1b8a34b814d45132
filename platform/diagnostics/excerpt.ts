/** Characters that could hide or rewrite what is shown: controls, format (bidi), private use, lone surrogates, line separators. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\u2028\u2029]/gu;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const ELLIPSIS = '…';

/**
 * A short, printable excerpt of untrusted text for diagnostics: unsafe characters written as
 * escapes (`\n`, `\u{202e}`), then cut at a character boundary to at most `maxBytes` bytes of
 * UTF-8, the ellipsis that marks a cut included.
 */
/** `text` with its unsafe characters written as escapes (`\n`, `\u{202e}`), everything else as it is. */
export const visibleText = (text: string) => text.replace(UNSAFE, (char) => NAMED[char] ?? `\\u{${char.codePointAt(0)!.toString(16)}}`);

export function sanitizedExcerpt(text: string, maxBytes: number): string {
  // Every character is at least one byte: more input than this cannot fit.
  const head = text.slice(0, maxBytes + 1);
  const visible = visibleText(head);
  if (head.length === text.length && Buffer.byteLength(visible) <= maxBytes) return visible;
  const budget = maxBytes - Buffer.byteLength(ELLIPSIS);
  let kept = '';
  let bytes = 0;
  for (const char of visible) {
    const size = Buffer.byteLength(char);
    if (bytes + size > budget) break;
    kept += char;
    bytes += size;
  }
  return kept + ELLIPSIS;
}
