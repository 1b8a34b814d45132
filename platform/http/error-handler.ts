import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { failure } from './envelope.js';
import { ApiError } from './errors.js';

/** Fastify's own client-error codes that mean "the request body or headers are unusable". */
const clientErrorCodes = new Set([
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
  'FST_ERR_CTP_BODY_TOO_LARGE',
  'FST_ERR_CTP_INVALID_JSON_BODY',
  'FST_ERR_VALIDATION',
]);

export function renderError(error: FastifyError | ApiError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    reply.headers(error.headers);
    return reply.status(error.statusCode).send(failure(error.code, error.message, error.extra));
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return reply.status(400).send(failure('BAD_REQUEST', fastifyError.message));
  }
  if (fastifyError.statusCode === 429) {
    return reply.status(429).send(failure('RATE_LIMITED', 'too many requests', { retry_after_seconds: 1 }));
  }
  if (
    (fastifyError.code && clientErrorCodes.has(fastifyError.code)) ||
    error instanceof SyntaxError ||
    (fastifyError.statusCode !== undefined && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500)
  ) {
    return reply.status(400).send(failure('BAD_REQUEST', fastifyError.message || 'malformed request'));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.status(500).send(failure('INTERNAL_ERROR', 'internal error; retry later'));
}

/** One error handler and one not-found handler for the whole app, both in the envelope. */
export const errorHandling = fp(async (app: FastifyInstance) => {
  app.setErrorHandler(renderError);
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send(failure('NOT_FOUND', `no route for ${request.method} ${request.url.split('?')[0]}`)),
  );
});
