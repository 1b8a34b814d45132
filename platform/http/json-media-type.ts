/**
 * What a Content-Type header says about a JSON body, one rule for every route: the media type is
 * `application/json` (any case, parameters allowed), and a charset, when named (once), is one whose
 * bytes UTF-8 reads as sent (ASCII is UTF-8's first 128 code points).
 */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

/** Whether a Content-Type header names JSON (parameters such as charset are allowed). */
export function isJsonContentType(header: string | undefined): boolean {
  return header?.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** Every charset a Content-Type names, lower case (one, in a well-formed header). */
const charsetsOf = (header: string | undefined) => [...(header ?? '').matchAll(/;\s*charset\s*=\s*"?([^";\s]*)/gi)].map((match) => match[1]!.toLowerCase());

/**
 * The charset named that UTF-8 cannot read as sent (`""` for `charset=` with no value), or
 * undefined when there is none. A header naming two is refused with both: which one the client
 * meant is not ours to guess.
 */
export function refusedCharset(header: string | undefined): string | undefined {
  const charsets = charsetsOf(header);
  if (charsets.length > 1) return charsets.join(' and ');
  const [charset] = charsets;
  if (charset === undefined || UTF8_CHARSETS.has(charset)) return undefined;
  // An empty charset names none UTF-8 can read: said as the empty value it is.
  return charset === '' ? '""' : charset;
}
