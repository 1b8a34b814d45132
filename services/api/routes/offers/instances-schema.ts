import { Type, type Static } from '@sinclair/typebox';
import { errorStatuses, methodNotAllowedStatus, successEnvelope } from '../../../../platform/http/envelope-schema.js';
import { withExamples } from '../../../../platform/http/response-examples.js';
import { CANONICAL_UUID } from '../../../../platform/ids/uuid-text.js';
import { OFFER_DOCUMENT_VERSION } from '../../../../projections/offers/public-offer.js';
import { instancesExamples } from './instances-examples.js';

/**
 * Response schemas of `POST /v1/offers/instances`, one per status. Responses are serialized from
 * them, so only the fields named here can ever leave (every object is closed): internal offer
 * fields, the frozen destination or the serve's application never reach a client.
 */

const closed = { additionalProperties: false } as const;
// Plain string enums rather than unions of literals: the serializer then writes them without trying branches.
const oneOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const status = oneOf(['active', 'paused', 'pending', 'rejected', 'expired'] as const);

export const instanceOffer = Type.Object(
  {
    offer_id: Type.String({ format: 'uuid' }),
    offer_instance_id: Type.String({ format: 'uuid' }),
    version: Type.Optional(oneOf([OFFER_DOCUMENT_VERSION] as const)),
    offer_info: Type.Object(
      {
        status,
        title: Type.Optional(Type.String()),
        category: Type.Optional(Type.Object({ id: Type.String() }, closed)),
        description: Type.Optional(Type.String()),
      },
      closed,
    ),
    entity: Type.Optional(Type.Object({ id: Type.String(), name: Type.String(), type: Type.String() }, closed)),
    goals: Type.Optional(
      Type.Array(
        Type.Object(
          {
            event: Type.String(),
            pricing: Type.Object(
              {
                model: oneOf(['cpa', 'cps'] as const),
                amount: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'cpa only: decimal string' })),
                currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'cpa only: ISO 4217' })),
                rate: Type.Optional(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'cps only: a percentage, decimal string' })),
              },
              // Not an if/then here: Query serializes this schema for every card, and a condition costs a validation per goal.
              { ...closed, description: 'cpa: amount and currency; cps: rate' },
            ),
          },
          closed,
        ),
      ),
    ),
    action: Type.Optional(
      Type.Object({ type: oneOf(['url'] as const), payload: Type.Object({ url: Type.String({ format: 'uri' }) }, closed) }, {
        ...closed,
        description: 'the card\'s tracked short link, only while it can be opened',
      }),
    ),
    content_language: Type.Optional(Type.String()),
    material: Type.Optional(Type.Array(Type.Object({ format: Type.String(), url: Type.String(), tag: Type.String() }, closed))),
  },
  closed,
);
export type InstanceOffer = Static<typeof instanceOffer>;

/**
 * found items carry served_at, placement_id and offer; not_found items only the id and status.
 * The if/then/else says so to readers of the document; serializing it costs nothing at run time,
 * since the route serializes an item only to cut its answer's pieces (instances-answer.ts).
 */
export const instanceItem = Type.Object(
  {
    offer_instance_id: Type.String({ format: 'uuid', pattern: CANONICAL_UUID.source, description: 'the requested id, canonical lowercase' }),
    status: oneOf(['found', 'not_found'] as const),
    served_at: Type.Optional(Type.String({ format: 'date-time', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$', description: 'RFC 3339 UTC, second precision' })),
    placement_id: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'] })),
    offer: Type.Optional(instanceOffer),
  },
  {
    ...closed,
    description: 'found: with served_at, placement_id and offer; not_found: offer_instance_id and status only',
    if: { type: 'object', properties: { status: { const: 'found' } } },
    then: { required: ['served_at', 'placement_id', 'offer'] },
    else: { maxProperties: 2 },
  },
);
export type InstanceItem = Static<typeof instanceItem>;

/** The credential rows both offer routes share (reference: Errors, Authentication). */
export const OFFER_ROUTE_FORBIDDEN = {
  APPLICATION_NOT_SERVING: 'application cannot currently serve',
  DEVELOPER_SUSPENDED: 'developer account suspended',
  PUBLIC_TEST_SCOPE_DENIED: 'shared sandbox key used',
};
/** Failures on the offer routes: data and extra are exactly {}. */
export const emptyExtra = Type.Object({}, closed);

export const instancesResponses = withExamples({
  200: successEnvelope(Type.Object({ instances: Type.Array(instanceItem) }, closed), emptyExtra, 'found and not_found items, in request order'),
  ...errorStatuses(
    {
      400: { BAD_REQUEST: 'body not JSON; offer_instance_ids missing, empty, over 100 items, or containing a non-UUID; unknown body fields' },
      401: { UNAUTHORIZED: 'key missing, invalid or revoked, or a Test Key', ENV_MISMATCH: 'Live key with X-SVC-Test: true' },
      403: OFFER_ROUTE_FORBIDDEN,
      ...methodNotAllowedStatus('POST'),
      503: { OFFER_INSTANCE_UNAVAILABLE: 'served cards or offer details temporarily unreadable; no partial success; retry later' },
    },
    { extra: emptyExtra },
  ),
}, instancesExamples);

/** `X-SVC-Test`: the route reads it only to refuse a Live key sent as a test request. */
export const instancesHeaders = Type.Object({
  'X-SVC-Test': Type.Optional(Type.String({ description: 'true with a Live API Key is 401 ENV_MISMATCH: this route serves no test requests' })),
});
