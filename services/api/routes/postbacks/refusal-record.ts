import type { FastifyRequest } from 'fastify';
import type { RefusedRequest } from '../../../../platform/http/client-errors.js';
import { POSTBACK_REASONS, type PostbackReason } from '../../../../commands/postbacks/rejections.js';
import { sanitizedExcerpt, utf8OrEscapedBytes } from '../../../../platform/diagnostics/excerpt.js';
import type { PostbackRefusal } from '../../postback-refusals.js';
import { sourceAddress } from './channel.js';

/** What a refusal keeps of the request: enough to recognise it, never the whole of it. */
export const EXCERPT_BYTES = 256;
const ID_BYTES = 64;
const CONTENT_TYPE_BYTES = 100;
/** Bytes of the body decoded for the excerpt: more cannot be shown. */
const BODY_HEAD_BYTES = EXCERPT_BYTES * 4;

/** What a refusal records of a request, however far it got. */
interface SeenRequest {
  partnerId: string;
  sourceIp: string;
  method: string;
  contentType: string | undefined;
  /** The request target, for its query string. */
  target: string;
  /** The start of the body, when it was read. */
  body: string;
}

function refusalRecord(seen: SeenRequest, reason: PostbackReason, correlationId: string, at: Date): PostbackRefusal {
  const query = seen.target.includes('?') ? seen.target.slice(seen.target.indexOf('?')) : '';
  return {
    correlation_id: correlationId,
    partner_id: sanitizedExcerpt(seen.partnerId, ID_BYTES),
    source_ip: seen.sourceIp,
    method: seen.method,
    content_type: seen.contentType === undefined ? null : sanitizedExcerpt(seen.contentType, CONTENT_TYPE_BYTES),
    reason,
    status: POSTBACK_REASONS[reason].status,
    at: at.toISOString(),
    excerpt: sanitizedExcerpt([query, seen.body].filter(Boolean).join(' '), EXCERPT_BYTES),
  };
}

/** The diagnostics entry of a postback refused before the log. */
export function refusalOf(request: FastifyRequest, reason: PostbackReason, correlationId: string, at: Date): PostbackRefusal {
  return refusalRecord({
    partnerId: (request.params as { partner_id?: string } | undefined)?.partner_id ?? partnerInPath(request.url),
    sourceIp: sourceAddress(request),
    method: request.method,
    contentType: request.headers['content-type'],
    target: request.url,
    body: Buffer.isBuffer(request.body) ? utf8OrEscapedBytes(request.body.subarray(0, BODY_HEAD_BYTES)) : '',
  }, reason, correlationId, at);
}

/**
 * The diagnostics entry of a postback request Node's HTTP parser refused (no route ran): what its
 * request line and headers say, the query string as the excerpt (its body was never read), and
 * the socket's address (a proxy's, behind one: its forwarded header was not read either).
 */
export function parserRefusalOf(request: RefusedRequest, reason: PostbackReason, correlationId: string, at: Date): PostbackRefusal {
  return refusalRecord({
    partnerId: partnerInPath(request.target),
    sourceIp: request.remoteAddress ?? '',
    method: request.method,
    contentType: /\r\ncontent-type:[ \t]*([^\r\n]*)/i.exec(request.head)?.[1]?.trim(),
    target: request.target,
    body: '',
  }, reason, correlationId, at);
}

/**
 * The partner segment of the path, for the requests no route of the partner path took (TRACE,
 * WebDAV methods, a longer path): their params are empty, and a refusal without its partner would
 * be missing from the partner's search on the operator page.
 */
function partnerInPath(url: string): string {
  const segment = /\/postback\/([^/?#]*)/.exec(url)?.[1] ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
