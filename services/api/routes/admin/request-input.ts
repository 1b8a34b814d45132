import type { FastifyRequest } from 'fastify';

/**
 * What an admin JSON route takes as its input: no body is an empty input; a JSON null is a body,
 * an input that is not an object (refused 400 by the route's checks, never taken for no body).
 */
export const requestInput = (request: FastifyRequest): unknown => (request.body === undefined ? {} : request.body);
