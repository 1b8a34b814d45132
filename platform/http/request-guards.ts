import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { Server } from 'node:net';
import fp from 'fastify-plugin';
import { badRequest, serviceUnavailable, unsupportedMediaType } from './errors.js';

/**
 * Requests refused before their route runs, which Node or Fastify would otherwise answer in their
 * own shape. Needs the server options `http: { requireHostHeader: false }` and
 * `return503OnClosing: false`, so that these answers are the envelope's.
 */
export const requestGuards = fp(async (app: FastifyInstance) => {
  let closing = false;
  let draining = false;
  // Before close: requests are still answered, each with `Connection: close`, so clients let go
  // of their kept-alive connections one answer at a time instead of having them cut under a
  // request they are sending; readiness says the instance is going, so balancers stop sending.
  app.decorate('startDraining', () => {
    draining = true;
    // No new connection is taken (its client is refused before sending anything: safe to retry
    // elsewhere), while the open ones stay: net's close, not http's, which would also cut the
    // idle kept-alive ones a client may be writing a request on right now. close() later ends them.
    if (app.server.listening) Server.prototype.close.call(app.server);
  });
  app.addHook('onSend', async (_request, reply) => {
    if (draining) reply.header('connection', 'close');
  });
  // Fastify stops routing new work once close() starts; requests still arriving on kept-alive
  // connections are told to retry (elsewhere) and their connection closes.
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (closing || (draining && request.url === '/readyz')) done(serviceUnavailable('SHUTTING_DOWN', 'this instance is shutting down; retry the request'));
    else if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) done(badRequest('an HTTP/1.1 request needs a Host header'));
    else done(bodyFramingRefusal(request.raw));
  });
  // After the route's own onRequest checks (a key, a rate limit): a caller without a valid key
  // learns nothing about what the body may be, and a route whose error table has no 415 (the
  // instance route) answers in its own terms.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const refusal = contentEncodingRefusal(request.raw);
    if (refusal) done(refusal);
    else done(null, payload);
  });
});

/** Headers Node keeps the first of when sent twice: which one the client meant is not ours to guess. */
const SINGLE_HEADERS = new Map([
  ['content-type', 'Content-Type'],
  ['authorization', 'Authorization'],
]);

function repeatedSingleHeader(rawHeaders: string[]): string | undefined {
  const seen = new Set<string>();
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toLowerCase();
    if (!SINGLE_HEADERS.has(name)) continue;
    if (seen.has(name)) return SINGLE_HEADERS.get(name);
    seen.add(name);
  }
  return undefined;
}

/**
 * A request the server would read other than the client meant: Node keeps the first of two
 * Content-Types (or credentials), and ignores transfer codings besides chunked.
 */
function bodyFramingRefusal(request: IncomingMessage): Error | undefined {
  const repeated = repeatedSingleHeader(request.rawHeaders);
  if (repeated !== undefined) return badRequest(`${repeated} is given more than once; send it once`);
  const transferEncoding = request.headers['transfer-encoding']?.trim().toLowerCase();
  if (transferEncoding !== undefined && transferEncoding !== 'chunked') {
    return badRequest(`Transfer-Encoding ${transferEncoding} is not supported; send the body chunked or with a Content-Length`);
  }
  return undefined;
}

/** Node ignores content codings: a gzip body would be parsed as its compressed bytes (or plain bytes taken as gzip's). */
function contentEncodingRefusal(request: IncomingMessage): Error | undefined {
  const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
  const contentEncoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (hasBody && contentEncoding !== undefined && contentEncoding !== '' && contentEncoding !== 'identity') {
    return unsupportedMediaType(`Content-Encoding ${contentEncoding} is not accepted; send the body uncompressed`);
  }
  return undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Starts the drain before close (requestGuards): answers go on, each closing its connection. */
    startDraining(): void;
  }
}
