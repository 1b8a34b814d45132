/**
 * What a Content-Type header says about a JSON body, one rule for every route: the media type is
 * `application/json` (any case, parameters allowed), and a charset, when named, is one whose bytes
 * UTF-8 reads as sent (ASCII is UTF-8's first 128 code points).
 */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

/** Whether a Content-Type header names JSON (parameters such as charset are allowed). */
export function isJsonContentType(header: string | undefined): boolean {
  return header?.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** The charset a Content-Type names, lower case, or undefined. */
const charsetOf = (header: string | undefined) => /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(header ?? '')?.[1]?.toLowerCase();

/** The charset named that UTF-8 cannot read as sent, or undefined when there is none. */
export function refusedCharset(header: string | undefined): string | undefined {
  const charset = charsetOf(header);
  return charset !== undefined && !UTF8_CHARSETS.has(charset) ? charset : undefined;
}
