import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { PostbackAnswer } from '../../../../commands/postbacks/receive.js';
import { POSTBACK_REASONS, PostbackRejection, type PostbackReason } from '../../../../commands/postbacks/rejections.js';
import { failure, success } from '../../../../platform/http/envelope.js';
import { ApiError } from '../../../../platform/http/errors.js';
import { fromFramework } from '../../../../platform/http/framework-errors.js';

export const PROTOCOL_HEADER = 'svc-protocol-version';
export const PROTOCOL_VERSION = '1.0';
/** Where a refusal's human explanation goes: the envelope's message is the stable reason itself. */
export const DETAIL_HEADER = 'svc-error-detail';

/** What the failure's `extra.result` says: refused for good, logged but undecided, or not taken. */
export function resultOf(reason: PostbackReason): 'rejected' | 'deferred' | 'unavailable' | 'error' {
  if (reason === 'postback_intake_unavailable') return 'deferred';
  if (reason === 'internal_error') return 'error';
  return POSTBACK_REASONS[reason].status === 503 ? 'unavailable' : 'rejected';
}

/** The success envelope: data.result, data.correlation_id, and where the conversion was attributed and recorded. */
export function sendAnswer(reply: FastifyReply, answer: PostbackAnswer) {
  return reply.status(200).send(success({ ...answer }));
}

/**
 * A refusal in the postback shape: the reason's status; `code` its code, `message` the reason
 * (as the reference's example); `data` {}; `extra` the diagnostics; the human explanation in
 * SVC-Error-Detail (detailHeaderValue).
 */
export function sendRejection(reply: FastifyReply, reason: PostbackReason, correlationId: string, eventLogged: boolean, detail?: string) {
  return reply.status(POSTBACK_REASONS[reason].status).headers(rejectionHeaders(reason, detail)).send(rejectionEnvelope(reason, correlationId, eventLogged));
}

/**
 * The headers every refusal of `reason` carries, whoever writes it (the routes, or the HTTP
 * layer for a request the parser refused): the explanation, `Allow` on a 405, and `Retry-After`
 * on a 500 or 503 (a first retry after a second).
 */
export function rejectionHeaders(reason: PostbackReason, detail?: string): Record<string, string> {
  const { status } = POSTBACK_REASONS[reason];
  return {
    ...(detail && { [DETAIL_HEADER]: detailHeaderValue(detail) }),
    ...(status === 405 && { allow: 'GET, POST' }),
    ...((status === 503 || status === 500) && { 'retry-after': '1' }),
  };
}

/** The most characters of SVC-Error-Detail before it is cut (an explanation, not a copy of the input). */
const DETAIL_MAX = 300;

/**
 * A refusal's explanation as a header value: header values hold only visible ASCII safely, so a
 * backslash, a control character and every UTF-16 unit beyond ASCII (an unknown key "ü", a
 * path's €) are written as JSON escapes them (`\\`, `\u00fc`); a long one is cut, ending in "...".
 */
export function detailHeaderValue(detail: string): string {
  const value = detail.replace(/[^\x20-\x5b\x5d-\x7e]/g, (unit) => (unit === '\\' ? '\\\\' : `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`));
  return value.length > DETAIL_MAX ? `${value.slice(0, DETAIL_MAX - 3)}...` : value;
}

/** A refusal's envelope: `code` the reason's code, `message` the reason, `data` {}, `extra` the diagnostics. */
export function rejectionEnvelope(reason: PostbackReason, correlationId: string, eventLogged: boolean) {
  const { code, retryable } = POSTBACK_REASONS[reason];
  return failure(code, reason, { result: resultOf(reason), reason, correlation_id: correlationId, retryable, event_logged: eventLogged });
}

/** Any method but POST and GET on a postback path. */
export const methodNotAllowed = () => new PostbackRejection('method_not_allowed', 'use POST (or GET for the compatibility route)');
/** A path under the postback prefix that is not `/{partner_id}` (a trailing slash, more segments). */
export const noPartnerPath = () => new PostbackRejection('partner_not_found', 'the path names no partner: post to /v1/postback/{partner_id}');

/** Maps anything a postback handler or Fastify throws to a postback refusal; nothing escapes as a bare 500. */
export function rejectionOf(error: unknown, request: FastifyRequest): { reason: PostbackReason; eventLogged: boolean; detail: string } {
  if (error instanceof PostbackRejection) return { reason: error.reason, eventLogged: error.eventLogged, detail: error.message };
  const known = error instanceof ApiError ? error : fromFramework(error as FastifyError, request);
  if (known) {
    if (known.statusCode === 413) return { reason: 'payload_too_large', eventLogged: false, detail: known.message };
    if (known.statusCode === 415) return { reason: 'unsupported_media_type', eventLogged: false, detail: known.message };
    // The app's answer to what no postback route takes: another method, or (a 404) a longer path.
    const refusal = known.statusCode === 405 ? methodNotAllowed() : known.statusCode === 404 ? noPartnerPath() : undefined;
    if (refusal) return { reason: refusal.reason, eventLogged: false, detail: refusal.message };
    if (known.statusCode < 500) return { reason: 'invalid_payload', eventLogged: false, detail: known.message };
    // SHUTTING_DOWN: this instance takes nothing more; nothing was logged, a retry goes elsewhere.
    if (known.statusCode === 503) return { reason: 'postback_v10_unavailable', eventLogged: false, detail: known.message };
  }
  request.log.error({ err: error }, 'postback intake failed');
  return { reason: 'internal_error', eventLogged: false, detail: 'internal error before intake; retry with backoff and the same identity' };
}
