import { badRequest } from '../../../../platform/http/errors.js';
import { decodeFormPairs } from '../../../../platform/http/form-pairs.js';
import { parseTrackedLink, type TrackedLinkRef } from '../../../../projections/offers/links/parse-link.js';
import { ANY_CASE_UUID } from '../../../../platform/ids/uuid-text.js';

/**
 * The query string of `GET /v1/offers/info` (reference: the route's parameters and rules 1–2).
 * Read from the raw request target rather than the framework's parser, which keeps a value with
 * bad percent-encoding as it came: here that is a 400, and the decoded link is exactly the one
 * `action.payload.url` echoes.
 */

const INFO_PARAMETERS = ['offer_id', 'offerurl'] as const;
type InfoParameter = (typeof INFO_PARAMETERS)[number];

export interface InfoRequest {
  /** Canonical lowercase offer id. */
  offer_id?: string;
  /** The submitted link exactly as decoded, and the tracked link its path names. */
  link?: { url: string; ref: TrackedLinkRef };
}

/** RFC 3986 URI characters, percent-escapes well formed: `offerurl` is a `uri`, echoed as one. */
const URI_TEXT = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
/** scheme://authority, then the path as written (up to the query or fragment). */
const HIERARCHICAL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/;
const ENCODE_HINT = 'URL-encode the link as one parameter, including its own query and fragment';

/** A value for a message: quoted, and cut short when long. */
const shown = (value: string) => JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);

/** application/x-www-form-urlencoded pairs, strictly: '+' is a space, bad percent-encoding is a 400. */
const decodePairs = (query: string) =>
  decodeFormPairs(query, (part) => badRequest(`the query string is not valid percent-encoding (at ${shown(part)}); ${ENCODE_HINT}`));

/**
 * The tracked link a submitted `offerurl` is: a URI on LINK_BASE whose path, as written, is one
 * of the three link shapes. Query and fragment may be anything a URI holds; they never change
 * which link it is. Throws a 400 saying what is wrong otherwise.
 */
export function submittedLink(value: string, linkBase: string): TrackedLinkRef {
  const base = linkBase.replace(/\/+$/, '');
  if (!URI_TEXT.test(value) || value.split('#').length > 2) {
    throw badRequest(`offerurl is not a valid URI (characters a URI cannot hold, or bad percent-encoding); ${ENCODE_HINT}`);
  }
  const written = HIERARCHICAL.exec(value);
  const parsed = parseTrackedLink(value, linkBase);
  if (!written || (!parsed.ok && parsed.reason === 'malformed_url')) {
    throw badRequest(`offerurl must be a complete tracked link such as ${base}/AbCd1234, got ${shown(value)}`);
  }
  if (!parsed.ok && parsed.reason === 'other_origin') {
    throw badRequest(`offerurl is not a tracked link of this service: links live on ${base} (merchant destinations and other origins are not accepted)`);
  }
  // A path the URL parser had to normalize (dot segments) is not a link we issued.
  if (!parsed.ok || new URL(value).pathname !== written[1]) {
    throw badRequest(`offerurl has a path no tracked link has; supported: ${base}/{8 letters or digits}, ${base}/{instance UUID}, ${base}/static/st_{token}`);
  }
  return parsed.link;
}

/** The parameters of one request; throws a 400 BAD_REQUEST naming the problem. */
export function parseInfoQuery(query: string, linkBase: string): InfoRequest {
  const given = new Map<InfoParameter, string>();
  for (const [name, value] of decodePairs(query)) {
    if (!(INFO_PARAMETERS as readonly string[]).includes(name)) {
      throw badRequest(`unknown parameter ${shown(name)}; allowed: ${INFO_PARAMETERS.join(', ')} (${ENCODE_HINT})`);
    }
    if (given.has(name as InfoParameter)) throw badRequest(`${name} is given more than once; give it once`);
    given.set(name as InfoParameter, value);
  }
  const offerId = given.get('offer_id');
  const offerUrl = given.get('offerurl');
  if (offerId === undefined && offerUrl === undefined) throw badRequest('give offer_id (a canonical offer id), offerurl (a tracked link) or both');
  for (const [name, value] of given) if (value === '') throw badRequest(`${name} is empty`);

  const request: InfoRequest = {};
  if (offerId !== undefined) {
    if (!ANY_CASE_UUID.test(offerId)) throw badRequest(`offer_id must be a canonical offer id (a UUID), got ${shown(offerId)}`);
    request.offer_id = offerId.toLowerCase();
  }
  if (offerUrl !== undefined) request.link = { url: offerUrl, ref: submittedLink(offerUrl, linkBase) };
  return request;
}
