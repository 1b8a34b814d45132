import { maxHeaderSize, STATUS_CODES } from 'node:http';
import { plainAddress } from '../net/ip-text.js';
import type { Socket } from 'node:net';
import { failure } from './envelope.js';
import { type ApiError, badRequest, headerFieldsTooLarge, payloadTooLarge, requestTimeout } from './errors.js';

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

export function refusedRequestOf(error: ParserError): RefusedRequest | undefined {
  const head = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.subarray(0, 16 * 1024).toString('latin1') : undefined;
  const line = head === undefined ? null : /^([A-Z]+) (\S+) HTTP\/1\.[01]\r\n/.exec(head);
  return line ? { method: line[1]!, target: line[2]!, head: head! } : undefined;
}

/**
 * The catalogue's error for a request Node's HTTP parser refused before Fastify saw it (so no
 * route, hook or error handler runs): the statuses Node itself would answer, in the envelope.
 */
export function fromParser(error: ParserError): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return headerFieldsTooLarge(`the request line and headers are larger than the ${maxHeaderSize} bytes accepted`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return payloadTooLarge('the chunk extensions of the request body are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestTimeout('the request did not arrive in time');
  }
  return badRequest(`malformed HTTP request${error.reason ? `: ${error.reason}` : ''}`);
}

/**
 * Fastify's clientErrorHandler: answers on the raw socket (there is no request object yet) and
 * closes the connection, since the parser cannot tell where the next request would start.
 */
export function answerClientError(error: ParserError, socket: Socket, shapeFor?: RefusalShape): void {
  // A reset or already closed connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const apiError = fromParser(error);
  const refused = refusedRequestOf(error);
  const peer = socket.remoteAddress === undefined ? undefined : plainAddress(socket.remoteAddress);
  const request = refused && { ...refused, ...(peer !== undefined && { remoteAddress: peer }) };
  const answer = (request && shapeFor?.(request, apiError)) ?? { status: apiError.statusCode, headers: {}, body: JSON.stringify(failure(apiError.code, apiError.message)) };
  const head = [
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}`,
    ...Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`),
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(answer.body)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${answer.body}`, () => socket.destroy());
}
