/** The query string of a request target ('' when there is none). */
export function rawQueryOf(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
}

/**
 * application/x-www-form-urlencoded pairs, strictly: '+' is a space, and a part whose
 * percent-encoding is not UTF-8 (`%zz`, `%FF`) is thrown as `refuse(part)` rather than kept as it
 * came, as the framework's parser keeps it.
 */
export function decodeFormPairs(query: string, refuse: (part: string) => Error): [string, string][] {
  const pairs: [string, string][] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const [name, value] = equals < 0 ? [part, ''] : [part.slice(0, equals), part.slice(equals + 1)];
    try {
      pairs.push([decodeURIComponent(name.replace(/\+/g, ' ')), decodeURIComponent(value.replace(/\+/g, ' '))]);
    } catch {
      throw refuse(part);
    }
  }
  return pairs;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
/** One `%XX` escape of a form-encoded text. */
export const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/g;

/**
 * One form-encoded name or value, from its bytes (one character per byte, as latin1 reads them):
 * `+` is a space, `%XX` a byte, and the bytes must be UTF-8. A `%` without two hex digits after it
 * stays as written (partner systems send `50%off` unencoded; URLSearchParams keeps it too).
 * Undefined when the bytes are not UTF-8: URLSearchParams would turn them into U+FFFD, and
 * `order_id=A%FF` and `order_id=A%FE` would become one identity, the second postback a duplicate.
 */
export function formComponent(raw: string): string | undefined {
  const text = raw.replaceAll('+', ' ');
  const chunks: Buffer[] = [];
  let from = 0;
  for (const escape of text.matchAll(PERCENT_ESCAPE)) {
    chunks.push(Buffer.from(text.slice(from, escape.index), 'latin1'), Buffer.of(Number.parseInt(escape[0].slice(1), 16)));
    from = escape.index + 3;
  }
  chunks.push(Buffer.from(text.slice(from), 'latin1'));
  try {
    return STRICT_UTF8.decode(Buffer.concat(chunks));
  } catch {
    return undefined;
  }
}

/**
 * The parameters among `names` whose value in a raw query string is not UTF-8 once percent-decoded
 * (formComponent): the framework's parser keeps such a value as it came or turns it into U+FFFD,
 * either way not the text that was meant.
 */
export function undecodableParameters<Name extends string>(rawQuery: string, names: readonly Name[]): Name[] {
  if (!rawQuery.includes('%')) return [];
  const found = new Set<Name>();
  for (const pair of rawQuery.split('&')) {
    const equals = pair.indexOf('=');
    if (equals < 0) continue;
    const decodedName = formComponent(pair.slice(0, equals));
    const name = names.find((candidate) => candidate === decodedName);
    if (name !== undefined && formComponent(pair.slice(equals + 1)) === undefined) found.add(name);
  }
  return [...found];
}
