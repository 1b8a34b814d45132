import type { Server } from 'node:http';
import type { FastifyHttpOptions, FastifyInstance } from 'fastify';
import { answerClientError, answerUnmetExpectation, type ConnectionRefusals } from './client-errors.js';
import { keepPeerAddresses } from './client-key.js';
import { answerConnectRequests } from './connect-requests.js';
import { shuttingDown } from './request-guards.js';

/**
 * Fastify's server options for answering what Node refuses before any route runs in the
 * envelope (with requestGuards): requests the HTTP parser refuses (headers too large,
 * malformed), and a request (line, headers, body) that does not arrive in `requestTimeoutMs`, a
 * 408 (Fastify's default is no limit: a client stalling mid-body held its connection forever).
 * Node checks the connections every connectionsCheckingInterval, and only while headersTimeout
 * is not longer than requestTimeout (its default of 60 s would keep the check from ever firing).
 * A missing Host header and requests arriving during shutdown are answered by requestGuards,
 * instead of by Node (an empty 400) and Fastify (its own 503 shape).
 */
export function connectionOptions(requestTimeoutMs: number, refusals: ConnectionRefusals) {
  return {
    clientErrorHandler: (error, socket) => answerClientError(error, socket, refusals),
    requestTimeout: requestTimeoutMs,
    http: {
      requireHostHeader: false,
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(5_000, Math.ceil(requestTimeoutMs / 4)),
    },
    return503OnClosing: false,
  } satisfies Partial<FastifyHttpOptions<Server>>;
}

/** The connection-level handling of a server built with connectionOptions: see each step. */
export function handleConnections(app: FastifyInstance, refusals: ConnectionRefusals): void {
  // A client may end its side once it has sent its requests (a shutdown(SHUT_WR), `nc -N`): Node
  // then ended the connection at once, and an answer still being worked out was never sent.
  // Half-open, the answers under way are sent, and the connection closed after the last one.
  (app.server as typeof app.server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  answerConnectRequests(app);
  keepPeerAddresses(app.server);
  refusals.openRequests.watch(app.server);
  // Requests still arriving when the drain is over are not waited for (OpenRequests.refuseArriving).
  app.addHook('preClose', (done) => {
    refusals.openRequests.refuseArriving(shuttingDown(), refusals);
    done();
  });
  app.server.on('checkExpectation', (request, response) => answerUnmetExpectation(request, response, refusals));
}
