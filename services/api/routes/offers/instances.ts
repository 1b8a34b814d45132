import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { keyHashSecretOf } from '../../../../platform/config/key-hash-secret.js';
import { renderError } from '../../../../platform/http/error-handler.js';
import { ApiError, badRequest, serviceUnavailable } from '../../../../platform/http/errors.js';
import { fromFramework } from '../../../../platform/http/framework-errors.js';
import { isRequestRefusal } from '../../../../platform/http/request-guards.js';
import { reusableBuffers } from '../../../../platform/http/reusable-buffers.js';
import { awaitCaughtUp, behindAs, lastSeenAtEnd } from '../../../../platform/projection/catch-up.js';
import type { Runtime } from '../../../../platform/runtime.js';
import { servesProjection } from '../../../../projections/serves/projection.js';
import { authenticateOfferRequest, type OfferRouteCaller } from '../../auth/offer-route-access.js';
import { TAG } from '../../openapi/tags.js';
import { openReadCaches } from '../../read-cache.js';
import { instancesAnswer, type InstancesAnswer } from './instances-answer.js';
import { unavailableOnFailure as readOrUnavailable } from '../../../../platform/http/read-or-unavailable.js';
import { lookupInstances } from './instances-lookup.js';
import { parseJsonBody } from '../../../../platform/http/json-body.js';
import { isJsonContentType, refusedCharset } from '../../../../platform/http/json-media-type.js';
import { readCanonicalIdList } from './instances-body-bytes.js';
import { RequestedIds } from './requested-ids.js';
import { ID_LIST_RULE, idListRefusal, instancesRequestBody, parseInstancesBody } from './instances-request.js';
import { instancesHeaders, instancesResponses } from './instances-schema.js';
import { openServedCardCache } from './served-card-cache.js';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** Answer buffers kept for reuse, and their least size (100 cards are about 70 kB). */
const ANSWER_BUFFERS_KEPT = 64;
const ANSWER_BUFFER_BYTES = 128 * 1024;
/** How long an unknown id that may not be applied yet waits for the serves projection (README, "Read your own writes"). */
const FRESH_CARD_WAIT_MS = 2_000;

function serializerOf(serialize: ((payload: { [key: string]: unknown }) => string) | undefined) {
  if (!serialize) throw new Error('the instances route has no serializer for its 200 answer');
  return (payload: unknown) => serialize(payload as { [key: string]: unknown });
}

/**
 * `POST /v1/offers/instances`: served cards by offer_instance_id (reference: Endpoints). Checked
 * in this order: the key (401, 403: onRequest, before the body is read), the body (400), then
 * one read of the read models (and, for an unknown id minted moments ago, a wait for the serves
 * projection), which answers 503 OFFER_INSTANCE_UNAVAILABLE as a whole when any part cannot be
 * read in time. Other methods get 405 from the app's not-found handler.
 */
export async function instancesRoute(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  const watermarks = await runtime.watermarks();
  const caches = openReadCaches(watermarks);
  const served = openServedCardCache(watermarks, { maxEntries: runtime.config.instanceCacheEntries });
  runtime.metrics.instanceCacheMaxCards.set(runtime.config.instanceCacheEntries);
  const reportCache = async () => {
    runtime.metrics.instanceCacheCards.set(served.size);
    runtime.metrics.instanceCacheBytes.set(served.bytes);
  };
  runtime.metrics.beforeScrape.push(reportCache);
  app.addHook('onClose', async () => {
    runtime.metrics.beforeScrape.splice(runtime.metrics.beforeScrape.indexOf(reportCache), 1);
    caches.close();
    served.close();
  });
  /** Cut from the route's own serializer at the first answer (it exists only once the route is registered). */
  let answer: InstancesAnswer | undefined;
  const secret = keyHashSecretOf(runtime.config);
  const answerBuffers = reusableBuffers({ keep: ANSWER_BUFFERS_KEPT, minBytes: ANSWER_BUFFER_BYTES, maxBytes: 4 * ANSWER_BUFFER_BYTES });
  const callers = new WeakMap<FastifyRequest, OfferRouteCaller>();

  /** The serves projection at the log's end, for a card that may not be applied yet; 503 when it is not there in time. */
  const servesAtEnd = {
    lastSeen: () => lastSeenAtEnd(runtime, [servesProjection]),
    await: () =>
      awaitCaughtUp(runtime, [servesProjection], FRESH_CARD_WAIT_MS).catch(
        behindAs(() => serviceUnavailable('OFFER_INSTANCE_UNAVAILABLE', 'a card asked for may be served but not readable yet (the read models are behind the log); retry shortly')),
      ),
  };

  /** Our refusals pass through; a read model that fails or does not answer in time is a 503 for the whole request. */
  const unavailableOnFailure = readOrUnavailable('OFFER_INSTANCE_UNAVAILABLE', 'served cards cannot be read right now; retry later', 'offer instance read failed');

  // The usual body's ids are read from its bytes (instances-body-bytes.ts); any other body is read
  // as every route reads JSON, and checked by parseInstancesBody. Only this route's parser.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    const usual = refusedCharset(request.headers['content-type']) === undefined ? readCanonicalIdList(bytes as Buffer) : undefined;
    if (usual !== undefined) return done(null, usual);
    parseJsonBody(request, bytes as Buffer, done);
  });

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/instances',
    {
      schema: {
        summary: 'Read served cards by offer_instance_id',
        tags: [TAG.offers],
        security: [{ apiKey: [] }],
        headers: instancesHeaders,
        body: instancesRequestBody,
        response: instancesResponses,
      },
      // The body is checked by parseInstancesBody (closed, no type coercion, the reference's
      // messages); the ids it returns (canonical, de-duplicated) replace the body. A body read
      // from its bytes is those ids already. The headers' schema only documents X-SVC-Test,
      // which the key check reads.
      validatorCompiler: ({ httpPart }) => (input: unknown) => {
        if (httpPart !== 'body') return { value: input };
        if (input instanceof RequestedIds) return { value: input };
        try {
          return { value: RequestedIds.fromTexts(parseInstancesBody(input).offer_instance_ids) };
        } catch (error) {
          return { error: error as Error };
        }
      },
      onRequest: async (request) => {
        const caller = await unavailableOnFailure(request, () =>
          authenticateOfferRequest(runtime.db, secret, request.headers, 'instances', caches.lookupKey),
        );
        callers.set(request, caller);
      },
      // Every 400 of this route about the body, the id list, states the list's rule, as the
      // reference asks of the message for a bad id list (not JSON, empty, an unknown field too);
      // one about the request's own framing (a header sent twice, a fragment) says only that.
      // The route's error table has no 413 or 415: a body too large for 100 ids, in another
      // charset or compressed is a body that is not the list, a 400 like the others.
      errorHandler: (error, request, reply) => {
        const known = error instanceof ApiError ? error : fromFramework(error, request);
        const aboutTheBody = ((known?.statusCode === 400 && known.code === 'BAD_REQUEST') || known?.statusCode === 413 || known?.statusCode === 415) && !isRequestRefusal(known);
        if (known && aboutTheBody && !known.message.startsWith(ID_LIST_RULE)) {
          return renderError(idListRefusal(known), request, reply);
        }
        return renderError(error, request, reply);
      },
      // This route's table says a body that is not JSON is a 400 (the app answers 415 elsewhere).
      preParsing: async (request, _reply, payload) => {
        const type = request.headers['content-type'];
        const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
        if (type === undefined ? hasBody : !isJsonContentType(type)) {
          throw badRequest('the body must be JSON sent with Content-Type: application/json');
        }
        return payload;
      },
    },
    async (request, reply) => {
      const caller = callers.get(request)!;
      const requested = request.body as unknown as RequestedIds;
      answer ??= instancesAnswer(serializerOf(reply.getSerializationFunction('200')));
      // The answer goes into a buffer used again once this response has been handed to the socket.
      const allocate = (bytes: number) => {
        const buffer = answerBuffers.acquire(bytes);
        reply.raw.once('finish', () => answerBuffers.release(buffer));
        return buffer;
      };
      const body = await unavailableOnFailure(request, () => lookupInstances(runtime.db, caches, served, answer!, caller.application_id, requested, servesAtEnd, allocate));
      // Already the serializer's bytes (instances-answer.ts), as UTF-8: they go out as they are.
      return reply.type(JSON_CONTENT_TYPE).send(body as never);
    },
  );
}
