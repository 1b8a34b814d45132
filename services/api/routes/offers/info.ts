import type { FastifyInstance, FastifyRequest } from 'fastify';
import { keyHashSecretOf } from '../../../../platform/config/key-hash-secret.js';
import { awaitLinkHolders } from '../../../../projections/offers/links/link-target.js';
import type { Sql } from '../../../../platform/db/db.js';
import { success } from '../../../../platform/http/envelope.js';
import { documentOnlyValidation } from '../../../../platform/http/envelope-schema.js';
import { ApiError, notFound, serviceUnavailable } from '../../../../platform/http/errors.js';
import { behindAs } from '../../../../platform/projection/catch-up.js';
import type { Runtime } from '../../../../platform/runtime.js';
import type { TrackedLinkRef } from '../../../../projections/offers/links/parse-link.js';
import type { DetailedOffer } from '../../../../projections/offers/public-offer.js';
import { authenticateOfferRequest } from '../../auth/offer-route-access.js';
import { TAG } from '../../openapi/tags.js';
import { openReadCaches } from '../../read-cache.js';
import { URL_ACTION_TYPE } from './card-action.js';
import { unavailableOnFailure as readOrUnavailable } from '../../../../platform/http/read-or-unavailable.js';
import { openOfferInfoCache, type OfferInfoCache } from './info-cache.js';
import { rawQueryOf } from '../../../../platform/http/form-pairs.js';
import { parseInfoQuery, type InfoRequest } from './info-request.js';
import { infoQuerystring, infoResponses, type InfoOffer } from './info-schema.js';

const UNAVAILABLE = 'OFFER_INFO_UNAVAILABLE';
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** How long a link no read model knows waits for them to reach the log's end (as on the link origin). */
const UNKNOWN_LINK_WAIT_MS = 2_000;

/** The answer's offer object (always with its details: projectOfferInfo shows no other): no instance id ever; `action` only for a link, which it echoes exactly. */
export function infoOffer(offer: DetailedOffer, submittedLink: string | undefined): InfoOffer {
  const { action: detailsAction, ...rest } = offer;
  if (submittedLink === undefined) return rest;
  return { ...rest, action: { type: URL_ACTION_TYPE, payload: { url: submittedLink }, ...detailsAction } };
}

/**
 * Which offer the request names and what may be shown of it: 404 for a link without mapping,
 * 409 when offer_id and the link name different offers, 404 for nothing public, 503 for stored
 * content that cannot be read. A link not known yet is looked up again once `awaitLinks` says the
 * read models holding links have reached the log's end (a card served a moment ago). Reads only
 * (through the caches); throws whatever the read models and `awaitLinks` throw.
 */
async function readOfferInfo(sql: Sql, cache: OfferInfoCache, request: InfoRequest, log: FastifyRequest['log'], awaitLinks: (link: TrackedLinkRef) => Promise<void>): Promise<InfoOffer> {
  let offerId = request.offer_id;
  if (request.link) {
    let linked = await cache.linkedOffer(sql, request.link.ref);
    if (linked === undefined) {
      await awaitLinks(request.link.ref);
      linked = await cache.linkedOffer(sql, request.link.ref);
    }
    if (linked === undefined) throw notFound('no tracked link has this address');
    if (offerId !== undefined && offerId !== linked) {
      throw new ApiError(409, 'OFFER_INFO_IDENTITY_CONFLICT', 'offer_id and offerurl identify different offers');
    }
    offerId = linked;
  }
  const content = await cache.content(sql, offerId!);
  switch (content.status) {
    case 'hidden':
      throw notFound(request.offer_id !== undefined ? 'no current public offer has this id' : 'no current public offer is behind this link');
    case 'unreadable':
      log.error({ offer_id: offerId, problem: content.problem }, 'stored offer content cannot be projected');
      throw serviceUnavailable(UNAVAILABLE, 'the offer\'s stored details cannot be read; retry later (a stored snapshot that is malformed needs correcting)');
    case 'public':
      return infoOffer(content.offer, request.link?.url);
  }
}

/**
 * `GET /v1/offers/info`: the current public details of one offer, by canonical id, by a tracked
 * link, or both (README, "Offer info"). Checked in this order: the key (401, 403), the
 * parameters (400), then the read models (404, 409, 503). It writes nothing and calls nobody.
 * Other methods, HEAD included, get 405 from the app's not-found handler.
 */
export async function infoRoute(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  const watermarks = await runtime.watermarks();
  const keys = openReadCaches(watermarks);
  const cache = openOfferInfoCache(watermarks, { maxEntries: runtime.config.offerInfoCacheEntries });
  app.addHook('onClose', async () => {
    keys.close();
    cache.close();
  });
  const secret = keyHashSecretOf(runtime.config);

  /** The read models holding links at the log's end, for a link not known yet; 503 when they are not there in time. */
  const awaitLinks = (link: TrackedLinkRef) =>
    awaitLinkHolders(runtime, link, UNKNOWN_LINK_WAIT_MS).catch(
      behindAs(() => serviceUnavailable(UNAVAILABLE, 'the read models are behind the log, so this link may be one served moments ago; retry shortly')),
    );

  /** Our refusals pass through; a read model that fails or does not answer in time is a 503, never a partial or wrong answer. */
  const unavailableOnFailure = readOrUnavailable(UNAVAILABLE, 'offer details cannot be read right now; retry later', 'offer info read failed');

  app.get(
    '/info',
    {
      exposeHeadRoute: false,
      schema: { summary: 'Read the public details of one offer', tags: [TAG.offers], security: [{ apiKey: [] }], querystring: infoQuerystring, response: infoResponses },
      // The parameters are read from the raw query string by parseInfoQuery (strict decoding, the
      // reference's errors); the schema describes them.
      ...documentOnlyValidation,
    },
    async (request, reply) => {
      await unavailableOnFailure(request, () => authenticateOfferRequest(runtime.db, secret, request.headers, 'info', keys.lookupKey));
      const rawQuery = rawQueryOf(request.url);
      const body = await cache.answer(rawQuery, async () => {
        const parameters = parseInfoQuery(rawQuery, runtime.config.linkBase);
        const offer = await unavailableOnFailure(request, () => readOfferInfo(runtime.db, cache, parameters, request.log, awaitLinks));
        // The route's own response serializer, so the kept bytes are exactly what it would send.
        return reply.serialize(success(offer)) as string;
      });
      return reply.type(JSON_CONTENT_TYPE).send(body);
    },
  );
}
