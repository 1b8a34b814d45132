import type { FastifyInstance } from 'fastify';
import { Server } from 'node:net';
import fp from 'fastify-plugin';
import { badRequest, serviceUnavailable } from './errors.js';

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
    else done();
  });
});

declare module 'fastify' {
  interface FastifyInstance {
    /** Starts the drain before close (requestGuards): answers go on, each closing its connection. */
    startDraining(): void;
  }
}
