import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { failure } from './envelope.js';
import { ApiError, methodNotAllowed, notFound } from './errors.js';
import { fromFramework } from './framework-errors.js';

export function renderError(error: FastifyError | ApiError | Error, request: FastifyRequest, reply: FastifyReply) {
  const known = error instanceof ApiError ? error : fromFramework(error as FastifyError, request);
  if (known) {
    // A 5xx of ours that says why (a backend's failure) leaves that reason in the log.
    if (known.statusCode >= 500 && known.cause !== undefined) request.log.warn({ err: known.cause }, `${known.code}: ${known.message}`);
    reply.headers(known.headers);
    return reply.status(known.statusCode).send(failure(known.code, known.message, known.extra));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.status(500).send(failure('INTERNAL_ERROR', 'internal error; retry later'));
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The methods the app has a route for at `path` (no query). */
export const methodsAt = (app: FastifyInstance, path: string): string[] => METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);

/**
 * 405 naming the allowed methods in Allow when `path` has routes under other methods only, else 404.
 * A route of the request's own method that found nothing (a missing file under /docs/) is a 404.
 */
export function noRouteFor(allowedAtPath: readonly string[], method: string, path: string): ApiError {
  if (allowedAtPath.includes(method)) return notFound(`nothing at ${path}`);
  return allowedAtPath.length > 0 ? methodNotAllowed(allowedAtPath.join(', ')) : notFound(`no route for ${method} ${path}`);
}

function noRoute(app: FastifyInstance, request: FastifyRequest): ApiError {
  const path = request.url.split('?')[0]!;
  return noRouteFor(methodsAt(app, path), request.method, path);
}

/**
 * One error handler and one not-found handler for the whole app, both in the envelope. Requests
 * the HTTP parser refuses never get here: the server's clientErrorHandler (client-errors.ts)
 * answers those. request-guards.ts refuses requests before routing.
 *
 * A request no route takes is answered (404, or 405 naming the allowed methods) before its body
 * is read: whatever body a wrong method carries (empty, not JSON, too large), the answer is 405.
 */
export const errorHandling = fp(async (app: FastifyInstance) => {
  app.setErrorHandler(renderError);
  app.setNotFoundHandler((request, reply) => renderError(noRoute(app, request), request, reply));
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (request.is404) done(noRoute(app, request));
    else done(null, payload);
  });
});
