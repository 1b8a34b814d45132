import type { FastifyRequest } from 'fastify';
import { PERCENT_ESCAPE, formComponent } from '../../../../platform/http/form-pairs.js';
import { isJsonContentType, refusedCharset } from '../../../../platform/http/json-media-type.js';
import { plainAddress } from '../../../../platform/net/ip-text.js';
import type { PostbackChannel } from '../../../../commands/postbacks/receive.js';
import { PostbackRejection } from '../../../../commands/postbacks/rejections.js';
import { PROTOCOL_HEADER, PROTOCOL_VERSION } from './respond.js';

const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;
/**
 * Postbacks carry no signature, timestamp or nonce (reference, Authentication rule 6): any header
 * whose name holds a signature, an HMAC (a signature by another name: `X-HMAC`, `X-SVC-HMAC`), a
 * nonce or a timestamp (`X-Timestamp`, `SVC-Request-Timestamp`, `X-Auth-Timestamp`) is refused.
 */
const SIGNATURE_HEADER = /signature|hmac|nonce|timestamp/i;

/**
 * Which contract a request on a postback path is answered by: GET is the compatibility query
 * route; a POST with a form body and without the protocol header is the compatibility form
 * route, any other POST the current contract; every other method is refused as the current
 * contract refuses (its 405 carries SVC-Protocol-Version, whatever Content-Type it sends).
 */
export function requestChannel(request: FastifyRequest): PostbackChannel {
  return channelOf(request.method, request.headers['content-type'], request.headers[PROTOCOL_HEADER] !== undefined);
}

/**
 * requestChannel from what a request says (also what a head the HTTP parser refused says, so
 * its answer carries SVC-Protocol-Version exactly when the route's would). Pure.
 */
export function channelOf(method: string, contentType: string | undefined, sentProtocolHeader: boolean): PostbackChannel {
  if (method === 'GET') return 'compat_get';
  if (method !== 'POST') return 'current';
  return !sentProtocolHeader && FORM.test(contentType ?? '') ? 'compat_form' : 'current';
}

/** The current contract's request checks, before the body is read. Throws PostbackRejection. */
function checkCurrentRequest(request: FastifyRequest): void {
  const version = request.headers[PROTOCOL_HEADER];
  if (version !== PROTOCOL_VERSION) {
    throw new PostbackRejection('unsupported_protocol_version', `send ${PROTOCOL_HEADER}: ${PROTOCOL_VERSION} (got ${version === undefined ? 'none' : JSON.stringify(version)})`);
  }
  const type = request.headers['content-type'];
  if (!isJsonContentType(type)) throw new PostbackRejection('unsupported_media_type', 'send the body as Content-Type: application/json');
  const charset = refusedCharset(type);
  if (charset !== undefined) throw new PostbackRejection('unsupported_media_type', `charset ${charset} is not accepted; send the body as UTF-8 JSON`);
  if (request.url.includes('?')) throw new PostbackRejection('query_parameters_not_allowed', 'the current contract takes every field in the JSON body; remove the query string');
  checkUnsigned(request);
}

/**
 * No postback route takes a signature (rule 6 covers every postback callback): the compatibility
 * routes refuse one as the current route does, rather than accept a check they never make.
 * Throws PostbackRejection.
 */
export function checkUnsigned(request: FastifyRequest): void {
  const signed = Object.keys(request.headers).find((name) => SIGNATURE_HEADER.test(name));
  if (signed) throw new PostbackRejection('signature_headers_not_allowed', `${signed}: postbacks are not signed; the partner's source address is its credential`);
}

/**
 * A POST's checks before its body is read: the current contract's, or for a form POST (only a
 * form body makes a POST the compatibility route: requestChannel) its charset and the signature check. Throws PostbackRejection.
 */
export function checkPostRequest(request: FastifyRequest, channel: PostbackChannel): void {
  if (channel === 'current') return checkCurrentRequest(request);
  // Form escapes are decoded as UTF-8: a form declared in another charset would be read as text it is not.
  const charset = refusedCharset(request.headers['content-type']);
  if (charset !== undefined) throw new PostbackRejection('unsupported_media_type', `charset ${charset} is not accepted; percent-encode the form's text as UTF-8`);
  checkUnsigned(request);
}


/**
 * A form body (its raw bytes) or a query string (ASCII, as HTTP carries it) as name → value, a
 * repeated name as its list of values. Throws invalid_payload naming the parameter whose name or
 * value is not UTF-8 once decoded: a conversion is never recorded under a value the partner did
 * not send.
 */
export function paramsOf(source: string | Buffer): Record<string, string | string[]> {
  const text = typeof source === 'string' ? source : source.toString('latin1');
  const params: Record<string, string | string[]> = Object.create(null);
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawName = equals < 0 ? pair : pair.slice(0, equals);
    const name = formComponent(rawName);
    const value = formComponent(equals < 0 ? '' : pair.slice(equals + 1));
    if (name === undefined || value === undefined) {
      const shown = name ?? (formComponent(rawName.replace(PERCENT_ESCAPE, '')) || 'a parameter');
      throw new PostbackRejection('invalid_payload', `${shown}: is not UTF-8 once percent-decoded; encode the text as UTF-8 before percent-encoding it`);
    }
    const earlier = params[name];
    params[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
  }
  return params;
}

/** The caller's address: Fastify's request.ip (the socket, or a trusted proxy's client); IPv4-mapped IPv6 as plain IPv4. */
export function sourceAddress(request: FastifyRequest): string {
  return plainAddress(request.ip);
}
