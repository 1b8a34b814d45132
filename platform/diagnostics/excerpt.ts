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

// ignoreBOM: a leading U+FEFF is part of what was sent, not a marker to drop.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** How many bytes the well-formed UTF-8 character at `at` takes, or 0 when the bytes there are not one. */
function utf8CharLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  if (lead < 0x80) return 1;
  // The lead byte's length and the first continuation byte's range (no overlongs, no surrogates, nothing past U+10FFFF).
  const [length, low, high] =
    lead >= 0xc2 && lead <= 0xdf ? [2, 0x80, 0xbf]
    : lead === 0xe0 ? [3, 0xa0, 0xbf]
    : lead === 0xed ? [3, 0x80, 0x9f]
    : lead >= 0xe1 && lead <= 0xef ? [3, 0x80, 0xbf]
    : lead === 0xf0 ? [4, 0x90, 0xbf]
    : lead >= 0xf1 && lead <= 0xf3 ? [4, 0x80, 0xbf]
    : lead === 0xf4 ? [4, 0x80, 0x8f]
    : [0, 0, 0];
  if (length === 0 || at + length > bytes.length) return 0;
  if (bytes[at + 1]! < low || bytes[at + 1]! > high) return 0;
  for (let next = at + 2; next < at + length; next += 1) if ((bytes[next]! & 0xc0) !== 0x80) return 0;
  return length;
}

/**
 * Bytes as text for diagnostics: UTF-8 as it is, and each byte that is not part of well-formed
 * UTF-8 as `\x{e9}`, so what was sent stays visible (decoding alone would make every such byte
 * the same U+FFFD).
 */
export function utf8OrEscapedBytes(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    let text = '';
    let run = 0;
    for (let at = 0; at < bytes.length; ) {
      const length = utf8CharLength(bytes, at);
      if (length > 0) {
        at += length;
        continue;
      }
      // The bytes since the last bad one are well-formed UTF-8 (each character was checked).
      text += strictUtf8.decode(bytes.subarray(run, at)) + `\\x{${bytes[at]!.toString(16)}}`;
      at += 1;
      run = at;
    }
    return text + strictUtf8.decode(bytes.subarray(run));
  }
}
