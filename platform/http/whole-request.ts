import type { IncomingMessage } from 'node:http';

/**
 * Whether a request has arrived whole: true at once for the usual one (no body, or one already
 * read to its end), else once the rest has come (read and dropped), false when its connection
 * ended first. The framework does not read a GET's body (README), yet Node still parses its
 * framing, and a body cut short, stalled or badly chunked is refused on the socket (400, 408) as
 * that request's answer: a GET route that records something waits for this first, so that a
 * refused request has recorded nothing.
 */
export function arrivedWhole(request: IncomingMessage): Promise<boolean> {
  if (request.complete || request.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (ended: boolean) => () => {
      request.off('end', atEnd);
      request.off('close', atClose);
      request.off('error', atClose);
      resolve(ended || request.complete);
    };
    const atEnd = settle(true);
    // The connection's end (its refusal already written, or its client gone); an error comes only with a listener.
    const atClose = settle(false);
    request.on('end', atEnd);
    request.on('close', atClose);
    request.on('error', atClose);
    request.resume();
  });
}
