import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { plainAddress } from '../net/ip-text.js';
import type { Socket } from 'node:net';
import { failure } from './envelope.js';
import { type ApiError, badRequest, expectationFailed, headerFieldsTooLarge, payloadTooLarge, requestTimeout } from './errors.js';
import { noRouteFor } from './error-handler.js';
import { NO_SNIFF } from './no-sniff.js';

/** What Node's HTTP parser reports on a 'clientError': a code, and for parse errors a reason. */
export interface ParserError extends Error {
  code?: string;
  reason?: string;
  /** The bytes the parser was reading when it refused them (a Buffer, on parse errors only). */
  rawPacket?: unknown;
}

/** The request line (and what followed it) of a refused request, when the parser's bytes start with one. */
export interface RefusedRequest {
  method: string;
  /** The request target as sent, e.g. `/v1/postback/…?a=1`. */
  target: string;
  /** The request line and the header lines that arrived with it, as text. */
  head: string;
  /** The socket's peer address (IPv4-mapped IPv6 written as IPv4). */
  remoteAddress?: string;
}

/** An answer of a route's own shape to a request the parser refused: status, headers and the JSON body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Gives the refusal of `error` in a route's own shape, for requests whose request line names that route. */
export type RefusalShape = (request: RefusedRequest, error: ApiError) => RawAnswer | undefined;

/**
 * A request answered at the connection level (no route, hook or access log runs for it): what
 * was refused, why (`cause`: the parser's error code, `expectation` or `shutdown`) and the answer.
 */
export interface ConnectionRefusal {
  status: number;
  code: string;
  cause: string;
  method?: string;
  /** The request target without its query (which may hold credentials). */
  path?: string;
  remoteAddress?: string;
}

/** How a server's connection-level refusals are answered: in a route's shape where it has one, the methods a path takes, and who hears of each. */
export interface ConnectionRefusals {
  openRequests: OpenRequests;
  shapeFor?: RefusalShape;
  allowedAt?: (path: string) => string[];
  /** Told of every refusal once it is written: these requests were otherwise neither logged nor counted. */
  refused?: (refusal: ConnectionRefusal) => void;
}

function reportOf(apiError: ApiError, cause: string, request: RefusedRequest | undefined, socket: Socket): ConnectionRefusal {
  const remoteAddress = socket.remoteAddress === undefined ? undefined : plainAddress(socket.remoteAddress);
  return {
    status: apiError.statusCode,
    code: apiError.code,
    cause,
    ...(request && { method: request.method, path: request.target.split('?')[0]! }),
    ...(remoteAddress !== undefined && { remoteAddress }),
  };
}

function refusedRequestOf(error: ParserError): RefusedRequest | undefined {
  // More than the 16 KB of head the parser takes: a header after an overlong request line still counts.
  const head = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, 64 * 1024).toString('latin1') : undefined;
  // A request line longer than the bytes kept ends without its version, and a malformed one
  // (`POST /v1/postback/… x HTTP/1.1`) has something else after its target: either way its
  // target still names the route.
  // The method as any token (a method the parser does not know, `get` or `FOO`, is refused as one).
  // The target is every byte up to the next space (a tab or a no-break space in it is what the
  // parser refused, not its end), in origin form: an absolute-form target names its route too.
  const line = head === undefined ? null : /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([^ \r\n]+)(?:[ \r]|$)/.exec(head);
  const target = line ? originForm(line[2]!) : '';
  return line && target.startsWith('/') ? { method: line[1]!, target, head: head! } : undefined;
}

/** A request target in origin form: an absolute-form target (`http://host/path?query`) without its scheme and authority. */
export const originForm = (target: string) => target.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '');

/** The request an open request (headers read, answer not yet sent) is, as a refusal sees it. */
function refusedRequestFrom(request: IncomingMessage): RefusedRequest {
  const headerLines: string[] = [];
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) headerLines.push(`${request.rawHeaders[index]}: ${request.rawHeaders[index + 1]}`);
  return { method: request.method ?? 'GET', target: request.url ?? '/', head: [`${request.method} ${request.url} HTTP/${request.httpVersion}`, ...headerLines, ''].join('\r\n') };
}

/**
 * The requests of each connection whose headers were read and whose answers are not finished:
 * the parser can refuse bytes that come after them on the same connection (pipelined), or the
 * rest of one of them (a body cut short, stalled or badly chunked). answerClientError reads it,
 * and refuseArriving at close, with the connections themselves.
 */
export class OpenRequests {
  readonly #open = new WeakMap<object, Map<IncomingMessage, ServerResponse>>();
  readonly #connections = new Set<Socket>();
  /** Per connection, a request answered before its body had all come (a route that does not read it, such as a GET's). */
  readonly #answeredEarly = new WeakMap<Socket, IncomingMessage>();

  watch(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.#connections.add(socket);
      socket.once('close', () => this.#connections.delete(socket));
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      let open = this.#open.get(request.socket);
      if (!open) this.#open.set(request.socket, (open = new Map()));
      open.set(request, response);
      response.once('close', () => {
        open.delete(request);
        if (!request.complete) this.#answeredEarly.set(request.socket, request);
      });
    });
  }

  of(socket: Socket): IncomingMessage[] {
    return [...(this.#open.get(socket)?.keys() ?? [])];
  }

  /**
   * Whether the connection's last request was answered and its body has not all come yet: bytes the
   * parser refuses now are the rest of that body, whose request has its answer already.
   */
  answeredBeforeWhole(socket: Socket): boolean {
    const request = this.#answeredEarly.get(socket);
    return request !== undefined && !request.complete;
  }

  /**
   * At close, once the drain is over: Node's close waits for every connection that is not idle
   * between requests, and stops checking REQUEST_TIMEOUT_MS, so one opened and left silent, or
   * stalled in a head or a body, held the close for good (the shutdown gave up after 10 s, exit
   * 4). A request whose body is still arriving is refused with `refusal`, in its route's shape; a
   * connection with no request under way (silent, or partway through a head: nothing of it was
   * taken) is closed. Answers under way are left to finish.
   */
  refuseArriving(refusal: ApiError, { shapeFor, refused }: Pick<ConnectionRefusals, 'shapeFor' | 'refused'> = {}): void {
    for (const socket of this.#connections) {
      const underWay = this.of(socket);
      const unfinished = underWay.find((request) => !request.complete);
      if (underWay.length === 0) socket.destroy();
      else if (unfinished && socket.writable && !refusedConnections.has(socket)) {
        refusedConnections.add(socket);
        const request = refusedRequestFrom(unfinished);
        writeAfter(socket, answerOf(refusal, withPeer(request, socket), shapeFor), underWay.filter((each) => each !== unfinished), this);
        refused?.(reportOf(refusal, 'shutdown', request, socket));
      }
    }
  }

  /** Resolves once the answers of `requests` (open on `socket`) have been sent, or their connection closed. */
  async finished(socket: Socket, requests: IncomingMessage[]): Promise<void> {
    const open = this.#open.get(socket);
    const responses = requests.flatMap((request) => open?.get(request) ?? []);
    await Promise.all(responses.map((response) => new Promise((resolve) => response.once('close', resolve))));
  }
}

/**
 * What a parser refusal says, by the part of the request at fault, in our words: the parser's own
 * reasons are its internals (and a TLS or HTTP/2 client gets them for bytes it never meant as HTTP/1).
 */
const HTTP1_ONLY = 'this service speaks HTTP/1.1 only (no HTTP/2 prior knowledge, no TLS on this port)';
const PARSER_REFUSALS: [RegExp, string][] = [
  [/^HPE_PAUSED_(UPGRADE|H2_UPGRADE)$/, HTTP1_ONLY],
  [/^HPE_INVALID_(URL|VERSION|CONSTANT)$/, 'the request line is malformed; send METHOD /path?query HTTP/1.1'],
  [/^HPE_(INVALID_CONTENT_LENGTH|UNEXPECTED_CONTENT_LENGTH|INVALID_TRANSFER_ENCODING|INVALID_CHUNK_SIZE|INVALID_EOF_STATE)$/,
    'the request body is not framed as its Content-Length or chunked Transfer-Encoding says'],
];

/**
 * The catalogue's error for a request Node's HTTP parser refused before Fastify saw it (so no
 * route, hook or error handler runs): the statuses Node itself would answer, in the envelope.
 * A method the parser does not know is one no route takes: 405 naming the path's methods
 * (`allowedAt`), or 404 when the path has none.
 */
export function fromParser(error: ParserError, refused?: RefusedRequest, allowedAt?: (path: string) => string[]): ApiError {
  // A TLS handshake record (type 22, version 3.x) on this plain port: its first byte is no method's,
  // and "the method is not one this service knows" told a client speaking TLS nothing of use.
  if (Buffer.isBuffer(error.rawPacket) && error.rawPacket[0] === 0x16 && error.rawPacket[1] === 0x03) return badRequest(`malformed HTTP request: ${HTTP1_ONLY}`);
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return headerFieldsTooLarge(`the request line and headers are larger than the ${maxHeaderSize} bytes accepted`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return payloadTooLarge('the chunk extensions of the request body are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestTimeout('the request did not arrive in time');
    case 'HPE_INVALID_METHOD':
      if (refused && allowedAt) {
        const path = refused.target.split('?')[0]!;
        return noRouteFor(allowedAt(path), refused.method, path);
      }
      return badRequest('malformed HTTP request: the method is not one this service knows');
  }
  const known = PARSER_REFUSALS.find(([codes]) => codes.test(error.code ?? ''));
  return badRequest(`malformed HTTP request: ${known ? known[1] : 'a header line is malformed'}`);
}

/** Connections given their refusal: the parser may report more errors on them, which get no second answer. */
const refusedConnections = new WeakSet<Socket>();

/**
 * Fastify's clientErrorHandler: answers on the raw socket and closes the connection, since the
 * parser cannot tell where the next request would start. A refusal of the rest of a request
 * already under way (its body cut short, stalled or badly chunked) is that request's answer, in
 * its route's shape; bytes refused after requests still being answered (pipelined) are answered
 * once those answers are sent, so a request that was taken is never answered by the refusal of
 * what followed it.
 */
export function answerClientError(error: ParserError, socket: Socket, refusals: Partial<ConnectionRefusals> = {}): void {
  const { shapeFor, openRequests: open, allowedAt } = refusals;
  // A reset or already closed connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  if (refusedConnections.has(socket)) return;
  refusedConnections.add(socket);
  const underWay = open?.of(socket) ?? [];
  // A second answer to one request would be read by the client as the answer to its next one.
  if (underWay.length === 0 && open?.answeredBeforeWhole(socket)) {
    socket.destroy();
    return;
  }
  const unfinished = underWay.find((request) => !request.complete);
  // The refused request's own: the one whose rest was refused, else the bytes' request line.
  // Which request bytes read after others began cannot be told from them: the generic envelope then.
  const refused = unfinished ? refusedRequestFrom(unfinished) : underWay.length === 0 ? refusedRequestOf(error) : undefined;
  const apiError = fromParser(error, refused, allowedAt);
  const answer = answerOf(apiError, refused && withPeer(refused, socket), shapeFor);
  writeAfter(socket, answer, underWay.filter((request) => request !== unfinished), open);
  refusals.refused?.(reportOf(apiError, error.code ?? 'unknown', refused, socket));
}

/** Writes `answer` and closes the connection once the answers of `before` (taken earlier on it) are sent. */
function writeAfter(socket: Socket, answer: RawAnswer, before: IncomingMessage[], open?: OpenRequests): void {
  if (before.length === 0) return writeRefusal(socket, answer);
  void open!.finished(socket, before).then(() => (socket.writable ? writeRefusal(socket, answer) : socket.destroy()));
}

const withPeer = (request: RefusedRequest, socket: Socket): RefusedRequest =>
  socket.remoteAddress === undefined ? request : { ...request, remoteAddress: plainAddress(socket.remoteAddress) };

/** A refusal as the envelope writes it, with `headers` beside its own. */
export const envelopeAnswer = (apiError: ApiError, headers: Record<string, string> = {}): RawAnswer => ({
  status: apiError.statusCode,
  headers: { ...apiError.headers, ...headers },
  body: JSON.stringify(failure(apiError.code, apiError.message, apiError.extra)),
});

/** The route's own shape of the refusal where it has one, else the envelope. */
const answerOf = (apiError: ApiError, request: RefusedRequest | undefined, shapeFor: RefusalShape | undefined): RawAnswer =>
  (request && shapeFor?.(request, apiError)) ?? envelopeAnswer(apiError);

function writeRefusal(socket: Socket, answer: RawAnswer): void {
  const head = [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}`,
    ...Object.entries({ ...answer.headers, ...NO_SNIFF }).map(([name, value]) => `${name}: ${value}`),
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(answer.body)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${answer.body}`, () => socket.destroy());
}

/**
 * Node's 'checkExpectation' (an Expect other than 100-continue): a 417 in the envelope, in the
 * route's own shape where it has one, instead of Node's empty 417. The request is not routed.
 */
export function answerUnmetExpectation(request: IncomingMessage, response: ServerResponse, { shapeFor, refused }: Pick<ConnectionRefusals, 'shapeFor' | 'refused'> = {}): void {
  const apiError = expectationFailed(`Expect: ${request.headers.expect} cannot be met; only 100-continue is supported`);
  const refusedRequest = refusedRequestFrom(request);
  const answer = answerOf(apiError, withPeer(refusedRequest, request.socket), shapeFor);
  refused?.(reportOf(apiError, 'expectation', refusedRequest, request.socket));
  response.shouldKeepAlive = false;
  response.writeHead(answer.status, { ...answer.headers, ...NO_SNIFF, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer.body) });
  response.end(answer.body);
}
