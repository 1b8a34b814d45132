import { failure, success } from '../../../../platform/http/envelope.js';
import { methodNotAllowedExample, type ResponseExamples } from '../../../../platform/http/response-examples.js';
import { credentialRefusals, EXAMPLE_LINK, exampleAction, exampleOffer } from './offer-examples.js';

/** Example answers of `GET /v1/offers/info` (reference: Offer object, the offer info route's Errors). */
export const infoExamples: ResponseExamples = {
  200: {
    by_offer_id: { summary: 'offer_id only: no action', value: success(exampleOffer) },
    by_offerurl: {
      summary: 'offerurl: action.payload.url is the submitted link, exactly',
      value: success({ ...exampleOffer, action: { ...exampleAction, payload: { url: `${EXAMPLE_LINK}?sub_id1=newsletter#top` }, name: 'Shop now', consumer_action: 'Open the store' } }),
    },
  },
  400: {
    BAD_REQUEST: { summary: 'neither parameter', value: failure('BAD_REQUEST', 'give offer_id (a canonical offer id), offerurl (a tracked link) or both') },
  },
  ...credentialRefusals,
  404: {
    NOT_FOUND: { summary: 'no current public offer (missing, withdrawn or not active)', value: failure('NOT_FOUND', 'no current public offer has this id') },
  },
  405: methodNotAllowedExample('GET', 'POST (or HEAD)'),
  409: {
    OFFER_INFO_IDENTITY_CONFLICT: { summary: 'offer_id and offerurl name different offers', value: failure('OFFER_INFO_IDENTITY_CONFLICT', 'offer_id and offerurl identify different offers') },
  },
  503: {
    OFFER_INFO_UNAVAILABLE: { summary: 'stored details temporarily unreadable', value: failure('OFFER_INFO_UNAVAILABLE', 'offer details cannot be read right now; retry later') },
  },
};
