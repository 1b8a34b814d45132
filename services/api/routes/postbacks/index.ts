import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { uuidV7 } from '../../../../platform/ids/uuid-v7.js';
import { parseCompatParams, parseCurrentBody, type FieldsResult } from '../../../../commands/postbacks/fields.js';
import { receivePostback, type PostbackChannel, type PostbackReads } from '../../../../commands/postbacks/receive.js';
import { POSTBACK_REASONS, PostbackRejection } from '../../../../commands/postbacks/rejections.js';
import { describeFailure } from '../../../../platform/startup.js';
import { documentOnlyValidation } from '../../../../platform/http/envelope-schema.js';
import type { Runtime } from '../../../../platform/runtime.js';
import { coalescedReads } from '../../../../platform/db/coalesced-reads.js';
import { findClicks } from '../../../../projections/clicks/queries.js';
import { remoteOfferGoals } from '../../../../projections/offers/queries.js';
import { findDecisions } from '../../../../projections/ledger/queries.js';
import { findServedInstances } from '../../../../projections/serves/queries.js';
import type { PostbackRefusals } from '../../postback-refusals.js';
import { openReadCaches } from '../../read-cache.js';
import { postbackAdmission, type AdmittedPostback } from './admission.js';
import { checkPostRequest, checkUnsigned, paramsOf, requestChannel, sourceAddress } from './channel.js';
import { openPartnerCache } from './partner-cache.js';
import { refusalOf } from './refusal-record.js';
import { methodNotAllowed, noPartnerPath, PROTOCOL_HEADER, PROTOCOL_VERSION, rejectionOf, sendAnswer, sendRejection } from './respond.js';
import { getSchema, otherMethodsSchema, postSchema } from './schema.js';
import { arrivedWhole } from '../../../../platform/http/whole-request.js';

/** Postbacks are a few fields; anything larger is not one. */
const BODY_LIMIT_BYTES = 16 * 1024;

interface PostbackState {
  channel: PostbackChannel;
  correlation_id: string;
  /** performance.now() when the route first saw the request: the answer's deadline counts from here. */
  arrivedAt: number;
  /** Its slot among the postbacks this process takes at once (POSTBACK_MAX_IN_FLIGHT). */
  admitted?: AdmittedPostback;
}

/** The explanation of a refusal at capacity (SVC-Error-Detail). */
const AT_CAPACITY = 'this instance is taking as many postbacks as it can decide right now; nothing was logged, retry with backoff';

/**
 * `POST /v1/postback/{partner_id}` (current contract: JSON, SVC-Protocol-Version 1.0) and the
 * compatibility shapes on the same path (`GET` with query parameters, `POST` with a form body).
 * Every answer is in the postback envelope (rendered here, not by the app's error handler), and
 * the current contract's answers carry SVC-Protocol-Version. The intake itself is the
 * `receivePostback` command; this file only parses and answers. Refusals that never reached the
 * log are also kept in `refusals` (diagnostics for the operator page), without waiting for it.
 */
export async function postbackRoutes(app: FastifyInstance, { runtime, refusals }: { runtime: Runtime; refusals: PostbackRefusals }) {
  const watermarks = await runtime.watermarks();
  const caches = openReadCaches(watermarks);
  const partners = openPartnerCache(watermarks);
  const admission = postbackAdmission(runtime.config.postbackMaxInFlight, runtime.metrics, () => app.log);
  app.addHook('onClose', async () => {
    caches.close();
    partners.close();
    admission.close();
  });
  // Cards, clicks and decisions are read fresh, but concurrent requests share one query each.
  const decisions = coalescedReads((ids: string[]) => findDecisions(runtime.db, ids));
  const clicks = coalescedReads((ids: string[]) => findClicks(runtime.db, ids));
  const cards = coalescedReads(async (ids: string[]) => new Map((await findServedInstances(runtime.db, ids)).map((card) => [card.offer_instance_id, card])));
  const reads: PostbackReads = {
    partner: (sql, id) => partners.get(sql, id),
    offer: async (sql, id) => (await caches.offers(sql, [id])).get(id) ?? undefined,
    remoteGoals: remoteOfferGoals,
    decision: (_sql, id) => decisions.get(id),
    click: (_sql, id) => clicks.get(id),
    servedInstance: (_sql, id) => cards.get(id),
  };
  const states = new WeakMap<FastifyRequest, PostbackState>();
  const stateOf = (request: FastifyRequest): PostbackState => {
    let state = states.get(request);
    if (!state) states.set(request, (state = { channel: requestChannel(request), correlation_id: uuidV7(), arrivedAt: performance.now() }));
    return state;
  };
  /**
   * Takes the request into the intake, or refuses it at once when this process already has
   * POSTBACK_MAX_IN_FLIGHT under way: before its body is read, so a refusal costs next to nothing.
   * Not kept in `refusals` (one store write per refusal is load the process cannot spare now):
   * counted and logged by the admission.
   */
  const admit = async (request: FastifyRequest, reply: FastifyReply) => {
    const state = stateOf(request);
    const admitted = admission.admit();
    if (!admitted) return sendRejection(reply, 'postback_v10_unavailable', state.correlation_id, false, AT_CAPACITY);
    state.admitted = admitted;
    reply.raw.once('close', () => admitted.answered());
    return undefined;
  };

  // Bodies are read raw: each contract parses its own (JSON or form) and names its own errors.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body));
  app.setErrorHandler((error, request, reply) => {
    const { reason, eventLogged, detail } = rejectionOf(error, request);
    const { correlation_id } = stateOf(request);
    // A 503 is the service's trouble, not the partner's: the operator hears of it here.
    if (POSTBACK_REASONS[reason].status === 503) {
      const cause = (error as { cause?: unknown }).cause;
      request.log.warn({ reason, correlation_id, event_logged: eventLogged, ...(cause !== undefined && { failure: describeFailure(cause) }) }, `postback answered 503: ${detail}`);
    }
    if (!eventLogged) refusals.append(refusalOf(request, reason, correlation_id, new Date()));
    return sendRejection(reply, reason, correlation_id, eventLogged, detail);
  });
  app.addHook('onSend', async (request, reply) => {
    if (stateOf(request).channel === 'current') reply.header(PROTOCOL_HEADER, PROTOCOL_VERSION);
  });

  async function intake(request: FastifyRequest<{ Params: { partner_id: string } }>, reply: FastifyReply, parsed: FieldsResult) {
    const state = stateOf(request);
    if (!parsed.ok) throw new PostbackRejection(parsed.reason, parsed.message);
    const receive = () =>
      receivePostback(
        runtime,
        { partner_id: request.params.partner_id, source_ip: sourceAddress(request), channel: state.channel, fields: parsed.fields, correlation_id: state.correlation_id },
        { now: new Date(), decisionTimeoutMs: runtime.config.postbackDecisionTimeoutMs, reads, arrivedAt: state.arrivedAt },
      );
    const answer = await (state.admitted ? state.admitted.hold(receive) : receive());
    return sendAnswer(reply, answer);
  }

  app.post<{ Params: { partner_id: string } }>(
    '/:partner_id',
    {
      bodyLimit: BODY_LIMIT_BYTES,
      // The schemas document the request; the raw body stays a buffer for the handler to parse.
      schema: postSchema,
      ...documentOnlyValidation,
      // The contract's own checks come first, in the README's order (protocol header, content type,
      // query string, signature headers): the app's checks of the body's headers (Content-Type
      // given twice, a Content-Encoding) run before the body is parsed, after a route's onRequest.
      onRequest: [async (request) => checkPostRequest(request, stateOf(request).channel), admit],
    },
    async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (stateOf(request).channel === 'current') return intake(request, reply, parseCurrentBody(body));
      const query = request.url.includes('?') ? paramsOf(request.url.slice(request.url.indexOf('?') + 1)) : {};
      return intake(request, reply, parseCompatParams(mergeParams(query, paramsOf(body))));
    },
  );

  app.get<{ Params: { partner_id: string } }>(
    '/:partner_id',
    {
      // HEAD must never record a conversion.
      exposeHeadRoute: false,
      schema: getSchema,
      ...documentOnlyValidation,
      onRequest: [async (request) => checkUnsigned(request), admit],
    },
    async (request, reply) => {
      // A body whose framing breaks is refused on the socket (400 invalid_payload) as this postback's answer: nothing is logged before it is whole.
      if (!(await arrivedWhole(request.raw))) return reply.hijack();
      const query = request.url.includes('?') ? paramsOf(request.url.slice(request.url.indexOf('?') + 1)) : {};
      return intake(request, reply, parseCompatParams(query));
    },
  );

  app.route({
    method: ['PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
    url: '/:partner_id',
    schema: otherMethodsSchema,
    // Before the body is read: whatever it carries (compressed, too large, not JSON), the answer is
    // 405. Fastify requires a handler; it is never reached.
    onRequest: refuseMethod,
    handler: refuseMethod,
  });
  // Whatever no route above takes under the prefix (TRACE, QUERY, WebDAV methods, a path with
  // more segments) belongs to this plugin only with a not-found handler of its own: the app's
  // check before the body (405 naming the methods, else 404) then reaches this plugin's error
  // handler, which answers in the postback envelope (rejectionOf), not the app's.
  app.setNotFoundHandler(async () => {
    throw noPartnerPath();
  });
}

const refuseMethod = async () => {
  throw methodNotAllowed();
};

/** Query and form fields of one compatibility POST; a name in both counts as repeated. */
function mergeParams(query: Record<string, string | string[]>, form: Record<string, string | string[]>): Record<string, string | string[]> {
  const merged: Record<string, string | string[]> = Object.assign(Object.create(null), query);
  for (const [name, value] of Object.entries(form)) {
    const earlier = merged[name];
    merged[name] = earlier === undefined ? value : [...[earlier].flat(), ...[value].flat()];
  }
  return merged;
}
