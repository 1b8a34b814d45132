import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/**
 * Node hands a CONNECT request to the server's 'connect' listeners, not to its request handler,
 * and with none it closes the connection without a word. This service tunnels nothing, so such a
 * request is routed like any other method no route takes (405 naming the path's methods, or
 * 404, each in its route's envelope), and the connection is closed after the answer: what the
 * client sent after the headers is not an HTTP request.
 */
export function answerConnectRequests(app: FastifyInstance): void {
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    // Node hands the socket over without an 'error' listener of its own, and this response has
    // none either: a client resetting the connection was an unhandled error event (on the socket
    // when read, on the response when written), which ended the process.
    socket.on('error', () => socket.destroy());
    const response = new ServerResponse(request);
    response.on('error', () => socket.destroy());
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.on('finish', () => {
      response.detachSocket(socket as Socket);
      // Destroyed once the answer is written, as Node does after a `Connection: close` answer:
      // the server is half-open, so end() alone left the connection (a descriptor) open for as
      // long as the client kept its own side open, with no timeout.
      (socket as Socket).destroySoon();
    });
    app.routing(request, response);
  });
}
