import { withUnreservedDecoded } from '../../../platform/http/unreserved.js';
import { ANY_CASE_UUID, CANONICAL_UUID } from '../../../platform/ids/uuid-text.js';
import type { TrackedLinkShape } from '../../../schemas/generated/events.js';

export type { TrackedLinkShape };

/**
 * Reads a submitted tracked-link URL: is it on the link origin, and which link does its path name?
 * Pure; what the link opens comes from `findLinkTarget` (link-target.ts).
 *
 * Supported paths below the link base: `/{8 alphanumerics}` (root short code), `/{UUID}` (root
 * historical instance; kept lowercase, read in either case as a UUID is), `/static/st_{[A-Za-z0-9_-]+}`.
 * Query string and fragment are ignored: they never change which link it is.
 */
export interface TrackedLinkRef {
  shape: TrackedLinkShape;
  /** The identifying segment, the key of `tracked_links`: the code, the UUID, or the st_ token. */
  code: string;
}

export type ParsedLink =
  | { ok: true; link: TrackedLinkRef }
  | { ok: false; reason: 'malformed_url' | 'other_origin' | 'unsupported_path' };

export const SHORT_CODE = /^[A-Za-z0-9]{8}$/;
export const STATIC_TOKEN = /^st_[A-Za-z0-9_-]+$/;

/** The link's path relative to the link base, without its leading slash. */
export function linkPath(link: TrackedLinkRef): string {
  return link.shape === 'static_path' ? `static/${link.code}` : link.code;
}

/** The full URL of a link on the given link base. */
export function linkUrl(linkBase: string, link: TrackedLinkRef): string {
  return `${linkBase.replace(/\/+$/, '')}/${linkPath(link)}`;
}

/** Which shape a bare code has, or undefined when it has none. */
export function shapeOfCode(code: string): TrackedLinkShape | undefined {
  if (SHORT_CODE.test(code)) return 'short_code';
  if (CANONICAL_UUID.test(code)) return 'instance_uuid';
  if (STATIC_TOKEN.test(code)) return 'static_path';
  return undefined;
}

/**
 * The link a root path segment names (a short code, or an instance UUID in either case, as its
 * lowercase key), or undefined. Short codes are case-sensitive: `abcDEF12` and `ABCdef12` are two links.
 */
export function rootLinkOf(segment: string): TrackedLinkRef | undefined {
  if (SHORT_CODE.test(segment)) return { shape: 'short_code', code: segment };
  if (ANY_CASE_UUID.test(segment)) return { shape: 'instance_uuid', code: segment.toLowerCase() };
  return undefined;
}

export function parseTrackedLink(submitted: string, linkBase: string): ParsedLink {
  let url: URL;
  try {
    url = new URL(submitted);
  } catch {
    return { ok: false, reason: 'malformed_url' };
  }
  const base = new URL(linkBase);
  // Same scheme, host and port (URL normalizes case and default ports); credentials in the URL
  // would make it a different thing from the links we issue.
  if (url.origin !== base.origin || url.username !== '' || url.password !== '') return { ok: false, reason: 'other_origin' };
  // An escaped letter or digit is that character (RFC 3986, 6.2.2.2): the link origin opens either.
  const prefix = withUnreservedDecoded(base.pathname).replace(/\/+$/, '');
  const path = withUnreservedDecoded(url.pathname);
  if (!path.startsWith(`${prefix}/`)) return { ok: false, reason: 'other_origin' };
  const rest = path.slice(prefix.length + 1);
  if (rest.startsWith('static/')) {
    const token = rest.slice('static/'.length);
    return STATIC_TOKEN.test(token) ? { ok: true, link: { shape: 'static_path', code: token } } : { ok: false, reason: 'unsupported_path' };
  }
  const root = rootLinkOf(rest);
  return root ? { ok: true, link: root } : { ok: false, reason: 'unsupported_path' };
}
