import { Type } from '@sinclair/typebox';
import { SMALL_BODY_LIMIT } from '../../../../platform/http/body-limits.js';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { linkCodeReserve } from '../../../../commands/serves/link-code-reserve.js';
import { appendServes, prepareServes } from '../../../../commands/serves/serve.js';
import { resultWithin, withinDeadline } from '../../../../platform/async/deadline.js';
import { keyHashSecretOf } from '../../../../platform/config/key-hash-secret.js';
import { success } from '../../../../platform/http/envelope.js';
import { documentOnlyValidation, errorStatuses, methodNotAllowedStatus } from '../../../../platform/http/envelope-schema.js';
import { ApiError, serviceUnavailable } from '../../../../platform/http/errors.js';
import { notJsonBody } from '../../../../platform/http/framework-errors.js';
import { withExamples } from '../../../../platform/http/response-examples.js';
import { appliedLatencySampler } from '../../../../platform/projection/applied-latency.js';
import type { Runtime } from '../../../../platform/runtime.js';
import { bearerKey } from '../../auth/offer-route-access.js';
import type { KeyLookup } from '../../../../projections/accounts/queries.js';
import { perClientRateLimit } from '../../client-rate-limit.js';
import { TAG } from '../../openapi/tags.js';
import { openReadCaches } from '../../read-cache.js';
import { parseQueryBody, queryBody } from './query-body.js';
import { resolveQueryCaller } from './query-caller.js';
import { servingCandidatesOf } from './query-candidates.js';
import { queryResponse, renderCard } from './query-cards.js';
import { queryExamples } from './query-examples.js';
import { callerLocation } from './query-geo.js';
import { rankCandidates } from './query-ranking.js';
import { logBackendFailure } from '../../../../platform/http/backend-failure-log.js';

/**
 * How long Query waits for its serves to be logged before answering 503: a card is handed out only
 * once the log holds it (acks from every in-sync replica), never before.
 */
const APPEND_TIMEOUT_MS = 3_000;
/** How long the reads before the append (key, placement, location, candidates, link codes) may take in all. */
const READS_TIMEOUT_MS = 5_000;

/** The credential and placement refusals of resolveQueryCaller, the body's of parseQueryBody. */
const queryErrors = errorStatuses({
  400: { BAD_REQUEST: 'the body is not a JSON object of the contract (unknown field, wrong type, limit out of range); extra.field names the field' },
  401: {
    UNAUTHORIZED: 'key missing with placement_id; no placement_id while anonymous Query is unavailable; key invalid or revoked',
    ENV_MISMATCH: 'a Live API Key with X-SVC-Test: true, a Test Key without it, or X-SVC-Test: true without a key',
  },
  403: {
    APPLICATION_NOT_SERVING: 'application cannot currently serve',
    DEVELOPER_SUSPENDED: 'developer account suspended',
    PLACEMENT_INACTIVE: 'placement_id names an inactive placement; extra.field is placement_id',
  },
  404: { NOT_FOUND: 'placement_id is not a placement of the calling application; extra.field is placement_id' },
  413: { PAYLOAD_TOO_LARGE: 'a body over 64 KiB (the largest valid one is a few kB), refused before it is parsed' },
  ...methodNotAllowedStatus('POST'),
  415: { UNSUPPORTED_MEDIA_TYPE: 'a body that is not JSON (plain text too), bytes without Content-Type, a charset other than UTF-8, or a Content-Encoding other than identity' },
  429: { RATE_LIMITED: 'without an application\'s own key (anonymous, or the shared sandbox key): more than QUERY_RATE_LIMIT requests from this client address in a minute; retry after extra.retry_after_seconds' },
  503: { QUERY_UNAVAILABLE: 'serving is temporarily unavailable (no partial answer); retry' },
});

const queryHeaders = Type.Object({
  'X-SVC-Test': Type.Optional(Type.String({ description: 'true: a test request, served with a Test Key (a Live key or no key is 401 ENV_MISMATCH); the shared sandbox key serves sandbox whatever this says' })),
});

/** How long the rate limit's check of a key may take; past it the request is counted as one without a key. */
const KEY_CHECK_TIMEOUT_MS = 1_000;

const unavailable = (message: string) => serviceUnavailable('QUERY_UNAVAILABLE', `${message}; retry`);

/**
 * `POST /v1/offers/query` (README, "Query route"): body, then credentials, then location, then
 * candidates and ranking; every card is an OfferServed event, appended in one call, and the answer
 * goes out once the log holds them. The routes that read cards (instances, offer info, clicks,
 * postbacks) wait for a just-minted id to be projected (README, "Read your own writes").
 */
export async function queryRoutes(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  const watermarks = await runtime.watermarks();
  const caches = openReadCaches(watermarks);
  const candidates = servingCandidatesOf(runtime.db, watermarks);
  const linkCodes = linkCodeReserve(runtime);
  const sampleApplied = appliedLatencySampler(watermarks, (seconds) => runtime.metrics.readAfterWrite.observe({ projection: 'serves' }, seconds));
  app.addHook('onClose', async () => {
    caches.close();
    candidates.close();
  });

  // Anyone can serve cards without a key of their own (anonymous, the public sandbox key), and each
  // card is a write to the log: those requests are limited per client address. An application's
  // Live or Test key names who serves, so its requests are not counted; a key that cannot be
  // checked in time (or at all) counts as none.
  // One check of a request's key (a keyed hash and a cache read) serves the rate limit and the caller's credentials.
  const keyChecks = new WeakMap<FastifyRequest, { key: string; lookup: Promise<KeyLookup> }>();
  const lookupKeyOf = (request: FastifyRequest) => (key: string) => {
    const earlier = keyChecks.get(request);
    if (earlier?.key === key) return earlier.lookup;
    const lookup = caches.lookupKey(runtime.db, keyHashSecretOf(runtime.config), key);
    // Awaited later by the handler, or never (a limited request): never an unhandled rejection.
    lookup.catch(() => {});
    keyChecks.set(request, { key, lookup });
    return lookup;
  };
  const withApplicationKey = async (request: FastifyRequest) => {
    const authorization = request.headers.authorization;
    const key = bearerKey(Array.isArray(authorization) ? authorization[0] : authorization);
    if (key === undefined) return false;
    const lookup = await withinDeadline(lookupKeyOf(request)(key), KEY_CHECK_TIMEOUT_MS).catch(() => undefined);
    return typeof lookup === 'object' && (lookup.kind === 'live' || lookup.kind === 'test');
  };
  await app.register(rateLimit, perClientRateLimit(runtime, 'query', runtime.config.queryRateLimit, withApplicationKey));

  // Query reads JSON only. Plain text (which the app otherwise reads as a string) is a 415 here,
  // not a 400 saying a JSON object is not one; a body without Content-Type is the empty request
  // when it has no bytes (chunked with none, as Node's http.request().end() sends), else a 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: SMALL_BODY_LIMIT }, (request, bytes, done) => {
    const contentType = request.headers['content-type'];
    if (contentType === undefined && (bytes as Buffer).length === 0) return done(null, undefined);
    done(notJsonBody(contentType), undefined);
  });

  app.post('/query', {
    schema: {
      summary: 'Serve offer cards for a placement',
      tags: [TAG.query],
      // A key, or none when the environment designates a default placement (anonymous serving).
      security: [{ apiKey: [] }, {}],
      headers: queryHeaders,
      body: queryBody,
      // A POST without any body (no Content-Type, no bytes) is the empty request.
      'x-body-optional': true,
      response: withExamples({ 200: queryResponse, ...queryErrors }, queryExamples),
    },
    // parseQueryBody checks the body (the reference's messages and extra.field): the schema only documents it.
    ...documentOnlyValidation,
    // The largest valid body is a few kB: an anonymous caller does not get a megabyte parsed.
    bodyLimit: SMALL_BODY_LIMIT,
  }, async (request) => {
    // Fastify hands the validator null for a POST without a body; a request that gets here without
    // Content-Type had no bytes (a body without one is a 415), so it is the empty request, while a
    // JSON null (which needs the header) stays a 400.
    const body = parseQueryBody(request.headers['content-type'] === undefined ? undefined : request.body);
    // A backend too slow to answer is the service's trouble: the operator hears of it too.
    const timedOut = (message: string) => {
      request.log.warn(`query failed: ${message}`);
      return unavailable(message);
    };
    try {
      const choose = async () => {
        const caller = await resolveQueryCaller(runtime, caches, request.headers, body.placement_id, lookupKeyOf(request));
        const location = await callerLocation(runtime.db, request.raw.rawHeaders, runtime.config.trustedGeoHeaders);
        const chosen = rankCandidates(await candidates.current(), {
          environment: caller.environment,
          chain: location?.chain,
          categories: body.context.categories ?? [],
          limit: body.limit,
        });
        if (chosen.length === 0) return { chosen, events: [] };
        const events = await prepareServes(runtime, {
          ...caller,
          location_id: location?.location_id ?? null,
          offers: chosen.map((candidate) => ({ offer_id: candidate.offer_id, destination_url: candidate.destination_url })),
        }, new Date(), (count) => linkCodes.take(count));
        return { chosen, events };
      };
      // Reads that do not answer (a Postgres that stopped answering) are a 503 in bounded time too.
      const { chosen, events } = await resultWithin(choose(), READS_TIMEOUT_MS, () => timedOut(`the read models did not answer within ${READS_TIMEOUT_MS / 1000} s`));
      if (chosen.length === 0) return success({ cards: [] });
      const appendStarted = performance.now();
      // With the log unreachable the client hears 503 within this budget, not after the Kafka
      // client's retries. Serves logged after the answer are cards nobody was given (README, "Query").
      const appended = await resultWithin(appendServes(runtime, events), APPEND_TIMEOUT_MS, () => timedOut(`the served cards could not be logged within ${APPEND_TIMEOUT_MS / 1000} s`)).catch((error: unknown) => {
        if (error instanceof ApiError) throw error;
        // A log that refuses at once (a stopped broker) says the same as one that does not answer.
        logBackendFailure(request.log, error, 'query failed');
        throw unavailable('the served cards could not be logged');
      });
      // The projection's latency (append to applied) is measured, not waited for.
      sampleApplied('serves', appended, appendStarted);
      return success({ cards: events.map((event, index) => renderCard(chosen[index]!.offer, event)) });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // A backend that fails (database, log) is a retryable answer, never a partial one.
      logBackendFailure(request.log, error, 'query failed');
      throw unavailable('serving is temporarily unavailable');
    }
  });
}
