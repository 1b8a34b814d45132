import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { failure } from './envelope.js';
import { type ApiError, badRequest, headerFieldsTooLarge, payloadTooLarge, requestTimeout } from './errors.js';

/** What Node's HTTP parser reports on a 'clientError': a code, and for parse errors a reason. */
export interface ParserError extends Error {
  code?: string;
  reason?: string;
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
export function answerClientError(error: ParserError, socket: Socket): void {
  // A reset or already closed connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const apiError = fromParser(error);
  const body = JSON.stringify(failure(apiError.code, apiError.message));
  const head = [
    `HTTP/1.1 ${apiError.statusCode} ${STATUS_CODES[apiError.statusCode]}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}
