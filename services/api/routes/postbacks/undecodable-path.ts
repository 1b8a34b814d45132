import type { FastifyReply, FastifyRequest } from 'fastify';
import { PostbackRejection, type PostbackReason } from '../../../../commands/postbacks/rejections.js';
import { uuidV7 } from '../../../../platform/ids/uuid-v7.js';
import type { PostbackRefusals } from '../../postback-refusals.js';
import { checkPostRequest, requestChannel } from './channel.js';
import { refusalOf } from './refusal-record.js';
import { methodNotAllowed, PROTOCOL_HEADER, PROTOCOL_VERSION, sendRejection } from './respond.js';

export const POSTBACK_PATH_PREFIX = '/v1/postback/';

/**
 * A postback URL whose partner id the router cannot decode (bad percent-encoding) never reaches
 * the postback routes; it is answered as they would answer it without reading the body: the
 * method and the contract's headers are checked first, then it is partner_not_found, since such
 * a path names no partner. In the postback envelope, with SVC-Protocol-Version on the current
 * contract, and kept among the refusals for the operator page.
 */
export function refuseUndecodablePath(request: FastifyRequest, reply: FastifyReply, refusals: PostbackRefusals) {
  const correlationId = uuidV7();
  let reason: PostbackReason = 'partner_not_found';
  let detail = 'the partner id in the path is not valid percent-encoded UTF-8, so it names no partner';
  try {
    const channel = requestChannel(request);
    if (channel === 'current') reply.header(PROTOCOL_HEADER, PROTOCOL_VERSION);
    if (request.method === 'POST') checkPostRequest(request, channel);
    else if (request.method !== 'GET') throw methodNotAllowed();
  } catch (error) {
    if (!(error instanceof PostbackRejection)) throw error;
    ({ reason, message: detail } = error);
  }
  refusals.append(refusalOf(request, reason, correlationId, new Date()));
  return sendRejection(reply, reason, correlationId, false, detail);
}
