import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { badRequest, serviceUnavailable } from './errors.js';

/**
 * Requests refused before their route runs, which Node or Fastify would otherwise answer in their
 * own shape. Needs the server options `http: { requireHostHeader: false }` and
 * `return503OnClosing: false`, so that these answers are the envelope's.
 */
export const requestGuards = fp(async (app: FastifyInstance) => {
  let closing = false;
  // Fastify stops routing new work once close() starts; requests still arriving on kept-alive
  // connections are told to retry (elsewhere) and their connection closes.
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, _reply, done) => {
    if (closing) done(serviceUnavailable('SHUTTING_DOWN', 'this instance is shutting down; retry the request'));
    else if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) done(badRequest('an HTTP/1.1 request needs a Host header'));
    else done();
  });
});
