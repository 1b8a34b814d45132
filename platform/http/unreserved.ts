import { PERCENT_ESCAPE } from './form-pairs.js';

/**
 * A URL text with its escapes of unreserved characters decoded (`Ab%63d` is `Abcd`): RFC 3986
 * (6.2.2.2) makes both the same URI. Other escapes stay as written.
 */
export function withUnreservedDecoded(text: string): string {
  return text.replace(PERCENT_ESCAPE, (escape) => {
    const character = String.fromCharCode(Number.parseInt(escape.slice(1), 16));
    return /[A-Za-z0-9\-._~]/.test(character) ? character : escape;
  });
}
