import { failure, success } from '../../../../platform/http/envelope.js';
import { methodNotAllowedExample, type ResponseExamples } from '../../../../platform/http/response-examples.js';
import { ID_LIST_RULE } from './instances-request.js';
import { credentialRefusals, EXAMPLE_INSTANCE_ID, EXAMPLE_OFFER_ID, EXAMPLE_PLACEMENT_ID, exampleAction, exampleOffer } from './offer-examples.js';

/** The example card, served to the caller's application, showing `offer`. */
const foundCard = (offer: Record<string, unknown>) => ({
  offer_instance_id: EXAMPLE_INSTANCE_ID,
  status: 'found',
  served_at: '2026-03-14T09:26:53Z',
  placement_id: EXAMPLE_PLACEMENT_ID,
  offer: { offer_id: offer.offer_id, offer_instance_id: EXAMPLE_INSTANCE_ID, ...offer },
});

/** Example answers of `POST /v1/offers/instances` (reference: Instance item, the instance route's Errors). */
export const instancesExamples: ResponseExamples = {
  200: {
    found_and_not_found: {
      summary: 'two ids: a card served to this application, and an unknown id',
      value: success({
        instances: [
          foundCard({ ...exampleOffer, action: exampleAction }),
          { offer_instance_id: '0192f7c4-0d15-7e9a-8b6c-000000000000', status: 'not_found' },
        ],
      }),
    },
    remote_expired: {
      summary: 'a real-time remote partner offer: expired, no details, no action',
      value: success({
        instances: [
          foundCard({ offer_id: EXAMPLE_OFFER_ID, offer_info: { status: 'expired' } }),
        ],
      }),
    },
  },
  400: {
    BAD_REQUEST: { summary: 'an empty id list', value: failure('BAD_REQUEST', `${ID_LIST_RULE}; the list is empty`) },
  },
  401: {
    ...credentialRefusals[401],
    ENV_MISMATCH: { summary: 'a Live API Key with X-SVC-Test: true', value: failure('ENV_MISMATCH', 'a Live API Key cannot be used with X-SVC-Test: true') },
  },
  403: credentialRefusals[403],
  405: methodNotAllowedExample('POST', 'GET'),
  503: {
    OFFER_INSTANCE_UNAVAILABLE: { summary: 'served cards temporarily unreadable', value: failure('OFFER_INSTANCE_UNAVAILABLE', 'served cards cannot be read right now; retry later') },
  },
};
