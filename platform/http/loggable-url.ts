import { sanitizedExcerpt } from '../diagnostics/excerpt.js';

/** Query parameters whose values are never written to a log, whatever route they are sent to. */
const SECRET_PARAMETER = /token|key|secret|passw|auth|bearer|signature|credential/i;
/** An API key of ours, whatever parameter it was put in (`?bearer=svc_live_…`, `?q=svc_test_…`). */
const API_KEY_VALUE = /svc_(?:live|test|sandbox)_/i;
/** The user and password of an absolute-form request target. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;
/** An API key of ours anywhere in a URL (a path segment too), with the rest of it. */
const API_KEY_ANYWHERE = /svc_(?:live|test|sandbox)_[A-Za-z0-9_-]*/gi;

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** Whether a query string's `name=value` pair carries a credential by its name (token, api_key, …). */
export function isSecretParameter(pair: string): boolean {
  const equals = pair.indexOf('=');
  if (equals >= 0 && API_KEY_VALUE.test(decodedName(pair.slice(equals + 1)))) return true;
  return SECRET_PARAMETER.test(decodedName(equals < 0 ? pair : pair.slice(0, equals)));
}

/**
 * The request URL as access logs write it: a credential sent in the query string by mistake
 * (`?token=…` to the admin API, `?api_key=…`) is replaced by `[redacted]`; the rest is kept as
 * sent, so a log still shows what was asked.
 */
export function loggableUrl(url: string, secrets: readonly string[] = []): string {
  // An absolute-form target (`GET http://user:pass@host/…`) may carry a user and password.
  let text = url.replace(USERINFO, '$1[redacted]@');
  // A known secret anywhere (a path segment, a nested parameter) goes too, however it is spelled.
  for (const secret of secrets) text = text.replace(spellingOf(secret), '[redacted]');
  return redactParameters(text.replace(API_KEY_ANYWHERE, '[redacted]'));
}

const hexDigits = (byte: number) => [...byte.toString(16).padStart(2, '0')].map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit)).join('');

/** The few configured secrets' patterns, made once each. */
const spellings = new Map<string, RegExp>();
const spellingOf = (secret: string) => spellings.get(secret) ?? spellings.set(secret, anySpelling(secret)).get(secret)!;

/** `secret` as a URL may spell it: each character as itself or percent-encoded (any hex case), a space also as `+`. */
function anySpelling(secret: string): RegExp {
  const characters = [...secret].map((character) => {
    const escaped = [...Buffer.from(character, 'utf8')].map((byte) => `%${hexDigits(byte)}`).join('');
    const literal = character.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    return `(?:${literal}|${escaped}${character === ' ' ? '|\\+' : ''})`;
  });
  return new RegExp(characters.join(''), 'g');
}

function redactParameters(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => (pair.includes('=') && isSecretParameter(pair) ? `${pair.slice(0, pair.indexOf('='))}=[redacted]` : pair))
    .join('&');
  return `${url.slice(0, mark)}?${query}`;
}

/**
 * Bytes of each request-given text an access line keeps. Node takes a request head of up to
 * 16 KB, so a URL or Host header written whole made every cheap request (a 404) a line of up to
 * 32 KB (a Host byte above 0x7f is two bytes of UTF-8), past what log shippers keep in one line.
 */
export const LOGGED_URL_BYTES = 2048;
export const LOGGED_HOST_BYTES = 256;
/** An address, or what a trusted proxy's X-Forwarded-For said the client was. */
const LOGGED_ADDRESS_BYTES = 64;

/** Request-given text as a line may hold it: controls and format characters as escapes, cut to `bytes`. */
const loggable = (text: string | undefined, bytes: number) => (text === undefined ? undefined : sanitizedExcerpt(text, bytes));

/**
 * What an access log line says of a request (Fastify's own fields), its URL made loggable; `secrets`
 * (e.g. ADMIN_TOKEN) never appear. Every text the client chose is cut and has its control and
 * format characters escaped: Node reads header bytes as Latin-1, so a Host byte 0x9b became U+009B
 * (a terminal's CSI), which JSON writes as it is, and a bidi override reordered what followed it.
 */
export function requestForLog(secrets: readonly (string | undefined)[] = []) {
  const known = secrets.filter((secret): secret is string => secret !== undefined && secret.length > 0);
  return (request: { method: string; url: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
    method: request.method,
    // Redacted before it is cut: a cut secret would no longer be recognised.
    url: sanitizedExcerpt(loggableUrl(request.url, known), LOGGED_URL_BYTES),
    host: loggable(request.host, LOGGED_HOST_BYTES),
    remoteAddress: loggable(request.ip, LOGGED_ADDRESS_BYTES),
    remotePort: request.socket?.remotePort,
  });
}
