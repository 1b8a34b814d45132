import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { Server } from 'node:net';
import fp from 'fastify-plugin';
import { ApiError, badRequest, serviceUnavailable, unsupportedMediaType } from './errors.js';
import { NO_SNIFF } from './no-sniff.js';

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
  app.decorateRequest('keepsConnectionWhileDraining', false);
  app.addHook('onSend', async (request, reply) => {
    reply.headers(NO_SNIFF);
    if ((draining && !request.keepsConnectionWhileDraining) || asksToUpgrade(request.raw)) reply.header('connection', 'close');
  });
  // Fastify stops routing new work once close() starts; requests still arriving on kept-alive
  // connections are told to retry (elsewhere) and their connection closes.
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (closing || (draining && request.url === '/readyz')) done(shuttingDown());
    else done(versionRefusal(request.raw) ?? repeatedHeaderRefusal(request.raw, REQUEST_HEADERS) ?? hostRefusal(request.raw) ?? targetRefusal(request.raw) ?? bodyFramingRefusal(request.raw));
  });
  // After the route's own onRequest checks (a key, a rate limit): a caller without a valid key
  // learns nothing about what the body may be, and a route whose error table has no 415 (the
  // instance route) answers in its own terms.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const refusal = repeatedHeaderRefusal(request.raw, BODY_HEADERS) ?? contentEncodingRefusal(request.raw);
    if (refusal) done(refusal);
    else done(null, payload);
  });
});

/**
 * A request asking to switch protocols (an Upgrade header named in Connection: a WebSocket, h2c)
 * is answered as HTTP/1.1, and its connection closed after the answer: Node's parser stops at its
 * end, and with no 'upgrade' listener (this service upgrades to nothing) Node dropped what else
 * came in the same read, so requests pipelined after it went unanswered on a connection kept open.
 */
function asksToUpgrade(request: IncomingMessage): boolean {
  return request.headers.upgrade !== undefined && /(?:^|,)[ \t]*upgrade[ \t]*(?:,|$)/i.test(request.headers.connection ?? '');
}

/** The answer to a request that arrives while this instance shuts down: retry it (elsewhere). */
export const shuttingDown = (): ApiError => serviceUnavailable('SHUTTING_DOWN', 'this instance is shutting down; retry the request');

/** Refusals of the request's own framing (its headers, its target), which no route's body rules are about. */
const aboutTheRequest = new WeakSet<Error>();

/** A 400 about the request's framing rather than its content, such as a header sent twice. */
function requestRefusal(message: string): ApiError {
  const refusal = badRequest(message);
  aboutTheRequest.add(refusal);
  return refusal;
}

/** Whether an error is one of these guards' refusals of the request's framing (a route may word its own 400s apart from them). */
export const isRequestRefusal = (error: unknown): boolean => error instanceof Error && aboutTheRequest.has(error);

/**
 * Headers Node keeps the first of when sent twice: which one the client meant is not ours to
 * guess. Those about the request itself are refused before anything else; Content-Type only
 * once the route's key is checked, with the other rules about the body.
 */
const REQUEST_HEADERS = new Map([
  ['host', 'Host'],
  ['authorization', 'Authorization'],
]);
const BODY_HEADERS = new Map([['content-type', 'Content-Type']]);

function repeatedHeaderRefusal(request: IncomingMessage, single: Map<string, string>): Error | undefined {
  const seen = new Set<string>();
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index]!.toLowerCase();
    if (!single.has(name)) continue;
    if (seen.has(name)) return requestRefusal(`${single.get(name)} is given more than once; send it once`);
    seen.add(name);
  }
  return undefined;
}

/**
 * RFC 9112 3.2: an HTTP/1.1 request has a Host (exactly one: REQUEST_HEADERS), whose value is a
 * host (a name, an IPv4 address or a bracketed IPv6 one) and an optional port, or empty; Node
 * checks none of it.
 */
const HOST_VALUE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]*)(?::([0-9]*))?$/;

function hostRefusal(request: IncomingMessage): Error | undefined {
  const host = request.headers.host;
  if (host === undefined) return request.httpVersion === '1.1' ? requestRefusal('an HTTP/1.1 request needs a Host header') : undefined;
  const match = HOST_VALUE.exec(host);
  // An empty port (`host:`) is none; one past 65535 is no port.
  const valid = match !== null && (match[1] === undefined || Number(match[1]) <= 65535);
  return valid ? undefined : requestRefusal('the Host header is not a host name or address with an optional port');
}

/**
 * RFC 9112 3: a request line names its HTTP version. Node serves a line without one as HTTP/0.9
 * (no headers), answering it as if it were HTTP/1.1.
 */
function versionRefusal(request: IncomingMessage): Error | undefined {
  return request.httpVersionMajor === 1 ? undefined : requestRefusal('the request line has no HTTP version (method, target, HTTP/1.1); this server speaks HTTP/1.1 only');
}

/** A fragment is the client's own (RFC 9112 3.2): one sent in the request target would be read as part of the path or a parameter. */
function targetRefusal(request: IncomingMessage): Error | undefined {
  return request.url?.includes('#') ? requestRefusal('the request target contains a fragment (#); send the path and query only') : undefined;
}

/**
 * Node ignores transfer codings besides chunked: the body would be read other than the client meant.
 * HTTP/1.0 has none at all, yet Node reads a chunked body there: RFC 9112 6.1 has the framing
 * treated as faulty and the connection closed, as a proxy in front may have framed the body otherwise.
 */
function bodyFramingRefusal(request: IncomingMessage): Error | undefined {
  const transferEncoding = request.headers['transfer-encoding']?.trim().toLowerCase();
  if (transferEncoding !== undefined && request.httpVersion === '1.0') {
    return new ApiError(400, 'BAD_REQUEST', 'Transfer-Encoding is not HTTP/1.0; send the body with a Content-Length', {}, { connection: 'close' });
  }
  if (transferEncoding !== undefined && transferEncoding !== 'chunked') {
    return badRequest(`Transfer-Encoding ${transferEncoding} is not supported; send the body chunked or with a Content-Length`);
  }
  return undefined;
}

/**
 * Node ignores content codings: a gzip body would be parsed as its compressed bytes (or plain
 * bytes taken as gzip's). A body sent with GET or HEAD is never read, so it may be coded as it likes.
 */
function contentEncodingRefusal(request: IncomingMessage): Error | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
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
  interface FastifyRequest {
    /**
     * Set by a route whose caller must come back on the same connection during the drain, which
     * takes no new one: the poll of a job the shutdown is about to stop (job-followers.ts).
     */
    keepsConnectionWhileDraining: boolean;
  }
}
