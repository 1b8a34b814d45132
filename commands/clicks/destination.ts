import { domainToASCII } from 'node:url';

/**
 * Where a click is redirected: the destination frozen at serve time (or a registered link's
 * target) with the click delivered the way partners expect. Pure.
 *
 * - Macros `{svc_click_id}`, `{offer_instance_id}` and `{sub_id1}`…`{sub_id5}` (also written
 *   percent-encoded, `%7Bsvc_click_id%7D`, as URL tools store them) are replaced by their
 *   URL-encoded values in the path, query and fragment; an absent value is the empty string.
 *   Scheme and authority are left as they are: a value there could make the URL invalid.
 * - Without a `{svc_click_id}` macro the click id is appended as `svc_click_id=<id>` to the query
 *   (before any fragment), so a partner always receives it; an `svc_click_id` parameter the
 *   destination already holds is taken out first, so the click's id is the only one it reads.
 * - Characters a URL may not contain literally (non-ASCII, spaces, braces of unknown macros) are
 *   percent-encoded, so the result is always a valid Location header value; an http(s) host
 *   written in Unicode is given in its ASCII (punycode) form, the host a browser goes to.
 */
export const CLICK_MACROS = ['svc_click_id', 'offer_instance_id', 'sub_id1', 'sub_id2', 'sub_id3', 'sub_id4', 'sub_id5'] as const;
export type ClickMacro = (typeof CLICK_MACROS)[number];
export type MacroValues = { svc_click_id: string } & Partial<Record<Exclude<ClickMacro, 'svc_click_id'>, string | null>>;

const NAMES = CLICK_MACROS.join('|');
const MACRO = new RegExp(`\\{(${NAMES})\\}|%7[Bb](${NAMES})%7[Dd]`, 'g');
/** `scheme:` and, for hierarchical URLs, `//authority`. */
const SCHEME_AND_AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/[^/?#\\]*)?/;
/** Everything but unreserved, reserved and `%` (RFC 3986). */
const NOT_URI_CHARACTER = /[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/gu;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/**
 * Schemes a browser must never be sent to from a link; a destination with one is not followed.
 * Code and local data, and the Windows handlers and wrappers known to reach them from a click
 * (app deep links, `myapp://…`, stay allowed: that is what they are for).
 */
const UNSAFE_SCHEMES = new Set(['javascript', 'vbscript', 'data', 'file', 'blob', 'filesystem', 'view-source', 'jar', 'search', 'search-ms', 'ms-msdt', 'ms-officecmd']);

/** encodeURIComponent that cannot throw (a lone surrogate becomes U+FFFD). */
function encodeValue(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD'));
}

const isWebScheme = (scheme: string) => scheme === 'http' || scheme === 'https';

/**
 * Why a click may not be redirected to `destination`, or undefined when it may: it has a scheme,
 * not one that runs code or reads local data, and an http(s) one is written absolute (`//` and a
 * host: the URL parser also takes `https:shop.example/p`, but a browser reads that relative to
 * the link), without a backslash (a browser reads `\` as `/`, so `https://shop.example\@evil.example`
 * goes to shop.example, while the redirect writes it `%5C` and sends the browser to evil.example)
 * and without credentials before the host (what a reader takes for the host is not where it goes).
 */
export function redirectProblem(destination: string): string | undefined {
  const parts = SCHEME_AND_AUTHORITY.exec(destination);
  const scheme = parts?.[1]?.toLowerCase();
  if (scheme === undefined) return 'has no scheme; give an absolute http(s) URL or an app deep link';
  if (!isWebScheme(scheme)) {
    return UNSAFE_SCHEMES.has(scheme) ? `has a scheme a click is never sent to (${[...UNSAFE_SCHEMES].map((unsafe) => `${unsafe}:`).join(', ')}); give an http(s) URL or an app deep link` : undefined;
  }
  if ((parts![2]?.length ?? 0) <= 2) return 'is an http(s) URL without // and a host; a browser would open it relative to the link';
  if (destination.includes('\\')) return 'holds a backslash, which a browser reads as / and the redirect would write as %5C (another host for user@host forms); write / or %5C';
  if (parts![2]!.includes('@')) return 'names credentials before its host (user@host); give the URL without them';
  return undefined;
}

/** An http(s) URL a browser may be sent to as it is (redirectProblem finds nothing). */
export function isAbsoluteWebUrl(destination: string): boolean {
  const scheme = SCHEME_AND_AUTHORITY.exec(destination)?.[1]?.toLowerCase();
  return scheme !== undefined && isWebScheme(scheme) && redirectProblem(destination) === undefined;
}

/** Whether a click may be redirected there (redirectProblem finds nothing). */
export function isRedirectable(destination: string | null | undefined): destination is string {
  return !!destination && redirectProblem(destination) === undefined;
}

/**
 * `name=value` set in the query of `url`, before its fragment, after any other parameters: a
 * parameter of that name already there (a value copied from some earlier click, which a
 * partner reading the first one would take) is taken out.
 */
function setQueryParameter(url: string, name: string, value: string): string {
  const hash = url.indexOf('#');
  const beforeFragment = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? '' : url.slice(hash);
  const question = beforeFragment.indexOf('?');
  const path = question < 0 ? beforeFragment : beforeFragment.slice(0, question);
  const query = question < 0 ? undefined : beforeFragment.slice(question + 1);
  const named = (parameter: string) => parameter === name || parameter.startsWith(`${name}=`);
  const kept = query?.split('&').some(named) ? query.split('&').filter((parameter) => !named(parameter)).join('&') : query;
  const separator = kept === undefined ? '?' : kept === '' || kept.endsWith('&') ? '' : '&';
  return `${path}${kept === undefined ? '' : `?${kept}`}${separator}${encodeValue(name)}=${encodeValue(value)}${fragment}`;
}

/**
 * `scheme://authority` with an http(s) host written in Unicode in its ASCII form (punycode), as a
 * browser reads it; percent-encoding it instead names a host no resolver knows. Anything else
 * (a deep link's authority, a host that is no domain name) is left to the percent-encoding.
 */
function asciiAuthority(prefix: string): string {
  const parts = SCHEME_AND_AUTHORITY.exec(prefix);
  const authority = parts?.[2];
  if (!authority || !isWebScheme(parts[1]!.toLowerCase()) || /^[\x00-\x7f]*$/.test(authority)) return prefix;
  const [, host, port = ''] = /^\/\/([^:]*)(:\d*)?$/.exec(authority) ?? [];
  const ascii = host === undefined ? '' : domainToASCII(host);
  return ascii === '' ? prefix : `${parts[1]}://${ascii}${port}`;
}

/** The redirect target of one click on `destination` (which isRedirectable accepted). */
export function clickRedirectUrl(destination: string, values: MacroValues): string {
  const prefix = SCHEME_AND_AUTHORITY.exec(destination)?.[0] ?? '';
  let clickIdDelivered = false;
  const rest = destination.slice(prefix.length).replace(MACRO, (_match, braced?: string, encoded?: string) => {
    const name = (braced ?? encoded) as ClickMacro;
    if (name === 'svc_click_id') clickIdDelivered = true;
    return encodeValue(values[name] ?? '');
  });
  const substituted = `${asciiAuthority(prefix)}${rest}`.replace(LONE_SURROGATE, '\uFFFD').replace(NOT_URI_CHARACTER, (character) => encodeURIComponent(character));
  return clickIdDelivered ? substituted : setQueryParameter(substituted, 'svc_click_id', values.svc_click_id);
}
