import { failure } from '../../../../platform/http/envelope.js';
import { RATE_LIMITED_EXAMPLES } from '../../client-rate-limit.js';
import { methodNotAllowedExample, type ResponseExamples } from '../../../../platform/http/response-examples.js';

/**
 * Example answers of the link origin. Its success is a redirect without a body: its example is the
 * Location it sends (the link's destination with the click id).
 */
export const REDIRECT_LOCATION_EXAMPLE = 'https://shop.example.com/spring?campaign=spring&svc_click_id=0192f7c5-21aa-7c3e-9d10-4b5c6d7e8f90';

export const linkExamples: ResponseExamples = {
  400: {
    BAD_REQUEST: { summary: 'a sub_id parameter given twice', value: failure('BAD_REQUEST', 'sub_id1: is given more than once; give each sub id at most once') },
  },
  404: {
    NOT_FOUND: { summary: 'no tracked link at this address', value: failure('NOT_FOUND', 'no tracked link at this address') },
  },
  405: methodNotAllowedExample('GET, HEAD', 'POST'),
  410: {
    OFFER_NOT_ACTIVE: {
      summary: 'the offer is paused or expired',
      value: failure('OFFER_NOT_ACTIVE', 'the offer of this link is not active; the link opens again if the offer is reactivated'),
    },
  },
  429: RATE_LIMITED_EXAMPLES,
  503: {
    LINK_UNAVAILABLE: { summary: 'the click cannot be recorded right now', value: failure('LINK_UNAVAILABLE', 'the link cannot be opened right now; retry shortly') },
  },
};
