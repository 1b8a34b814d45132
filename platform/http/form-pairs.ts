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
