import type { FastifyError, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { ApiError, badRequest, notFound, payloadTooLarge, tooManyRequests, unsupportedMediaType } from './errors.js';

/**
 * Errors Fastify raises itself, before or around a handler (reading the body, decoding the URL,
 * schema validation), as errors of the catalogue: each keeps its HTTP status and gets a stable
 * code. Undefined for anything else, which is a failure of ours (500).
 */
export function fromFramework(error: FastifyError, request: FastifyRequest): ApiError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge(`the request body is larger than the ${request.routeOptions.bodyLimit} bytes accepted`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return notJsonBody(request.headers['content-type']);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('the request body is not as long as its Content-Length says');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest('the request body is empty, but Content-Type says application/json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return badRequest('the request body is not valid JSON');
    case 'FST_ERR_BAD_URL':
      return badRequest('the URL path is not valid percent-encoded UTF-8');
  }
  if (error.validation) return badRequest(error.message);
  if (error.statusCode === 429) return tooManyRequests(1);
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return pluginRefusal(error.statusCode, error, request);
  return undefined;
}

/**
 * A client error a plugin raises (the static files under /docs/) keeps its status, in our words:
 * a path leaving the folder is nothing there, a range past the file's end says the file's length.
 */
function pluginRefusal(status: number, error: FastifyError & { headers?: Record<string, string> }, request: FastifyRequest): ApiError {
  switch (status) {
    case 403:
      return notFound(`nothing at ${request.url.split('?')[0]}`);
    case 412:
      return new ApiError(412, 'PRECONDITION_FAILED', 'the file does not meet the request\'s preconditions (If-Match, If-Unmodified-Since)');
    case 416: {
      const contentRange = error.headers?.['Content-Range'];
      return new ApiError(416, 'RANGE_NOT_SATISFIABLE', 'the requested range lies outside the file', {}, contentRange ? { 'content-range': contentRange } : {});
    }
  }
  const phrase = STATUS_CODES[status] ?? 'Bad Request';
  return new ApiError(status, phrase.toUpperCase().replace(/[^A-Z]+/g, '_'), `the request cannot be answered: ${phrase.toLowerCase()}`);
}

/** 415 for a body sent as something other than JSON (`contentType` as the request gave it, or none). */
export function notJsonBody(contentType: string | undefined): ApiError {
  const given = contentType === undefined ? 'a body without Content-Type' : `Content-Type ${JSON.stringify(contentType)}`;
  return unsupportedMediaType(`${given} is not accepted; send the body as JSON with Content-Type: application/json`);
}
