import { POSTBACK_REASONS, type PostbackReason, type PostbackRejection } from '../../../../commands/postbacks/rejections.js';
import type { RawAnswer, RefusalShape, RefusedRequest } from '../../../../platform/http/client-errors.js';
import type { PostbackRefusals } from '../../postback-refusals.js';
import { parserRefusalOf } from './refusal-record.js';
import type { ApiError } from '../../../../platform/http/errors.js';
import { uuidV7 } from '../../../../platform/ids/uuid-v7.js';
import { methodNotAllowed, noPartnerPath, PROTOCOL_HEADER, PROTOCOL_VERSION, rejectionEnvelope, rejectionHeaders } from './respond.js';
import { POSTBACK_PATH_PREFIX } from './undecodable-path.js';
import { channelOf } from './channel.js';

/** The parser's refusals that are not the partner's payload; every other one is invalid_payload. */
const REASON_BY_STATUS: Record<number, PostbackReason> = { 408: 'request_timeout', 413: 'payload_too_large', 417: 'expectation_failed', 503: 'postback_v10_unavailable' };
/**
 * A method the parser does not know (`BREW`, a lowercase `get`) is refused as the routes refuse
 * any other method they do not take: 405 on `/{partner_id}`, 404 on a path that names no partner,
 * with the routes' own explanation (the parser's names every method registered on the path).
 */
const ROUTE_REFUSAL_BY_STATUS: Record<number, () => PostbackRejection> = { 404: noPartnerPath, 405: methodNotAllowed };

/** Paths the postback routes answer (their prefix, with or without a partner id). */
const BARE_POSTBACK_PATH = POSTBACK_PATH_PREFIX.slice(0, -1);
const isPostbackTarget = (target: string) =>
  target.startsWith(POSTBACK_PATH_PREFIX) || target === BARE_POSTBACK_PATH || target.startsWith(`${BARE_POSTBACK_PATH}?`);

/**
 * A postback request Node's HTTP parser refused (a malformed header, Content-Length with
 * Transfer-Encoding, chunk extensions too large, headers over the limit), answered as the
 * postback routes refuse: in their envelope, as invalid_payload or payload_too_large, with
 * SVC-Protocol-Version when the route's answer would carry it (the current contract: channelOf).
 * Partners branch on `extra.reason`; the generic envelope would give them none. A request that
 * stalled is request_timeout (408; `retryable` false, as every 4xx of the reference's table: the
 * partner resends a whole request), an Expect the server cannot meet expectation_failed (417),
 * a body still arriving when this instance closes postback_v10_unavailable (503, retryable).
 * Undefined for other paths.
 */
function postbackParserRefusal(request: RefusedRequest, error: ApiError, onRefused?: (reason: PostbackReason, correlationId: string) => void): RawAnswer | undefined {
  if (!isPostbackTarget(request.target)) return undefined;
  const routeRefusal = ROUTE_REFUSAL_BY_STATUS[error.statusCode]?.();
  const reason: PostbackReason = routeRefusal?.reason ?? REASON_BY_STATUS[error.statusCode] ?? 'invalid_payload';
  const headers = rejectionHeaders(reason, routeRefusal?.message ?? error.message);
  const contentType = /\r\ncontent-type:[ \t]*([^\r\n]*)/i.exec(request.head)?.[1];
  if (channelOf(request.method, contentType, /\r\nsvc-protocol-version:/i.test(request.head)) === 'current') headers[PROTOCOL_HEADER] = PROTOCOL_VERSION;
  const correlationId = uuidV7();
  onRefused?.(reason, correlationId);
  return { status: POSTBACK_REASONS[reason].status, headers, body: JSON.stringify(rejectionEnvelope(reason, correlationId, false)) };
}

/**
 * postbackParserRefusal, each refusal also kept in the diagnostics store, as the routes keep
 * theirs: a partner asking "did you get it?" about a request the parser refused is answered too.
 */
export function keptParserRefusals(refusals: PostbackRefusals): RefusalShape {
  return (request, error) =>
    postbackParserRefusal(request, error, (reason, correlationId) => refusals.append(parserRefusalOf(request, reason, correlationId, new Date())));
}
