import type { ApiError } from '../../platform/http/errors.js';
import { failure } from '../../platform/http/envelope.js';
import type { RawAnswer, RefusalShape } from '../../platform/http/client-errors.js';
import { LINK_HEADERS } from './routes/links/index.js';
import { ID_LIST_RULE } from './routes/offers/instances-request.js';

const INSTANCES_PATH = '/v1/offers/instances';

const envelope = (error: ApiError, status: number, code: string, message: string, headers: Record<string, string> = {}): RawAnswer => ({
  status,
  headers: { ...error.headers, ...headers },
  body: JSON.stringify(failure(code, message, error.extra)),
});

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
    if (linkPrefix !== '' && path.startsWith(`${linkPrefix}/`)) return envelope(error, error.statusCode, error.code, error.message, LINK_HEADERS);
    if (path === INSTANCES_PATH && (error.statusCode === 413 || error.statusCode === 415)) return envelope(error, 400, 'BAD_REQUEST', `${ID_LIST_RULE}; ${error.message}`);
    return undefined;
  };
}
