import { envelopeAnswer, type RefusalShape } from '../../platform/http/client-errors.js';
import { isUnderLinkPath, LINK_HEADERS } from './routes/links/index.js';
import { idListRefusal } from './routes/offers/instances-request.js';

const INSTANCES_PATH = '/v1/offers/instances';

/**
 * Refusals written on the socket (the parser's, an unmet Expect, a request still arriving at
 * shutdown) in the shape of the route the request line names, as its own answers are: under the
 * link path with the link origin's headers (never cached, no referrer), and on the instance
 * route a 413 or 415 as the 400 about the id list its table has instead. Undefined elsewhere
 * (the envelope as it is).
 */
export function routeRefusalShapes(linkPrefix: string): RefusalShape {
  return (request, error) => {
    const path = request.target.split('?')[0]!;
    if (isUnderLinkPath(linkPrefix, path)) return envelopeAnswer(error, LINK_HEADERS);
    if (path === INSTANCES_PATH && (error.statusCode === 413 || error.statusCode === 415)) return envelopeAnswer(idListRefusal(error));
    return undefined;
  };
}
