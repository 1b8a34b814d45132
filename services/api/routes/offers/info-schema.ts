import { Type, type Static } from '@sinclair/typebox';
import { errorStatuses, methodNotAllowedStatus, successEnvelope } from '../../../../platform/http/envelope-schema.js';
import { withExamples } from '../../../../platform/http/response-examples.js';
import { URL_ACTION_TYPE } from './card-action.js';
import { infoExamples } from './info-examples.js';
import { emptyExtra, instanceOffer, OFFER_ROUTE_FORBIDDEN } from './instances-schema.js';

/**
 * Schemas of `GET /v1/offers/info`, one response per status. Responses are serialized from them
 * and every object is closed, so only the fields named here can leave: no instance id, owner,
 * trace, placement, destination or internal field ever does.
 */

const closed = { additionalProperties: false } as const;

export const infoQuerystring = Type.Object(
  {
    offer_id: Type.Optional(Type.String({ format: 'uuid', description: 'canonical offer id; required when offerurl is absent' })),
    offerurl: Type.Optional(
      Type.String({
        format: 'uri',
        description: 'a complete existing tracked link on the link origin, URL-encoded as one parameter including its own query and fragment; required when offer_id is absent',
      }),
    ),
  },
  { ...closed, description: 'at least one; both must identify the same offer' },
);

// The offer object of the instance route without its instance id, with this route's action. This
// route answers only offers with details (the others are 404), so what the reference requires
// "when details are returned" is required here.
const { offer_instance_id: _instanceId, action: _cardAction, ...offerFields } = instanceOffer.properties;
const withDetails = Type.Required(Type.Pick(instanceOffer, ['version', 'entity', 'goals'])).properties;
const offerInfoWithDetails = Type.Required(instanceOffer.properties.offer_info);

const infoAction = Type.Object(
  {
    type: Type.Unsafe<typeof URL_ACTION_TYPE>({ type: 'string', enum: [URL_ACTION_TYPE] }),
    payload: Type.Object({ url: Type.String({ format: 'uri', description: 'the submitted offerurl, exactly' }) }, closed),
    name: Type.Optional(Type.String()),
    consumer_action: Type.Optional(Type.String()),
  },
  { ...closed, description: 'only when offerurl was given' },
);

export const infoOffer = Type.Object({ ...offerFields, ...withDetails, offer_info: offerInfoWithDetails, action: Type.Optional(infoAction) }, closed);
export type InfoOffer = Static<typeof infoOffer>;

export const infoResponses = withExamples({
  200: successEnvelope(infoOffer, emptyExtra, 'the offer\'s current public details'),
  ...errorStatuses(
    {
      400: { BAD_REQUEST: 'missing parameters, empty values, invalid UUID, non-tracked-link URL, unsupported path, malformed query' },
      401: { UNAUTHORIZED: 'key missing, invalid or revoked, or a Test Key' },
      403: OFFER_ROUTE_FORBIDDEN,
      404: { NOT_FOUND: 'link mapping, public offer or snapshot missing, or content withdrawn, hidden or test-only' },
      // Answered for the path (the route's own onRequest, or the app's not-found handler), as on the instance route.
      ...methodNotAllowedStatus('GET', 'a method other than GET on this path, HEAD included'),
      409: { OFFER_INFO_IDENTITY_CONFLICT: 'offer_id and offerurl resolve to different canonical offers' },
      503: { OFFER_INFO_UNAVAILABLE: 'stored details cannot be read or projected; no partial success; retry later' },
    },
    { extra: emptyExtra },
  ),
}, infoExamples);
