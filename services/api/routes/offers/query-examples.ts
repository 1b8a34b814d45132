import { failure, success } from '../../../../platform/http/envelope.js';
import { RATE_LIMITED_EXAMPLES } from '../../client-rate-limit.js';
import { methodNotAllowedExample, type ResponseExamples } from '../../../../platform/http/response-examples.js';
import { EXAMPLE_INSTANCE_ID, EXAMPLE_PLACEMENT_ID, exampleAction, exampleOffer } from './offer-examples.js';

/** Example answers of `POST /v1/offers/query` (the README's Query route). */
export const queryExamples: ResponseExamples = {
  200: {
    cards: {
      summary: 'one card for the placement',
      value: success({ cards: [{ ...exampleOffer, offer_instance_id: EXAMPLE_INSTANCE_ID, action: exampleAction }] }),
    },
    none: { summary: 'no offer matches', value: success({ cards: [] }) },
  },
  400: {
    BAD_REQUEST: {
      summary: 'an undeclared context field (a location is never sent in the body)',
      value: failure('BAD_REQUEST', 'context.user_profile is not a known field; context takes intent, locale and categories; a location is never sent in the body', { field: 'context.user_profile' }),
    },
  },
  401: {
    UNAUTHORIZED: { summary: 'an invalid key', value: failure('UNAUTHORIZED', 'API key invalid') },
    ENV_MISMATCH: { summary: 'X-SVC-Test: true without a key', value: failure('ENV_MISMATCH', 'X-SVC-Test: true needs a Test Key') },
  },
  403: {
    PLACEMENT_INACTIVE: {
      summary: 'an inactive placement',
      value: failure('PLACEMENT_INACTIVE', `placement_id ${EXAMPLE_PLACEMENT_ID} is inactive; activate it or send another placement`, { field: 'placement_id' }),
    },
  },
  404: {
    NOT_FOUND: {
      summary: "another application's placement",
      value: failure('NOT_FOUND', `placement_id ${EXAMPLE_PLACEMENT_ID} is not a placement of the calling application`, { field: 'placement_id' }),
    },
  },
  413: {
    PAYLOAD_TOO_LARGE: { summary: 'a body over 64 KiB', value: failure('PAYLOAD_TOO_LARGE', 'the request body is larger than the 65536 bytes accepted') },
  },
  415: {
    UNSUPPORTED_MEDIA_TYPE: {
      summary: 'a body sent as plain text',
      value: failure('UNSUPPORTED_MEDIA_TYPE', 'Content-Type "text/plain" is not accepted; send the body as JSON with Content-Type: application/json'),
    },
  },
  405: methodNotAllowedExample('POST', 'GET'),
  429: RATE_LIMITED_EXAMPLES,
  503: {
    QUERY_UNAVAILABLE: { summary: 'serving temporarily unavailable', value: failure('QUERY_UNAVAILABLE', 'serving is temporarily unavailable; retry') },
  },
};
