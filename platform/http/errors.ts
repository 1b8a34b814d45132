/**
 * The one error catalogue. Handlers throw ApiError; the error handler renders the envelope.
 * `extra` is merged into the envelope's metadata bag (e.g. retry_after_seconds, postback diagnostics).
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) => new ApiError(400, 'BAD_REQUEST', message, extra);
export const notFound = (message: string) => new ApiError(404, 'NOT_FOUND', message);
/** RFC 9110, 11.6.1: a 401 names the scheme that answers it (RFC 6750's Bearer: the key goes in Authorization). */
const BEARER_CHALLENGE = { 'www-authenticate': 'Bearer' };
export const unauthorized = (message: string) => new ApiError(401, 'UNAUTHORIZED', message, {}, BEARER_CHALLENGE);
/** A key of the other environment than the request asks for (X-SVC-Test). */
export const envMismatch = (message: string) => new ApiError(401, 'ENV_MISMATCH', message, {}, BEARER_CHALLENGE);
export const methodNotAllowed = (allowed: string) =>
  new ApiError(405, '405', `method not allowed; use ${allowed}`, {}, { allow: allowed });
export const tooManyRequests = (retryAfterSeconds: number) =>
  new ApiError(429, 'RATE_LIMITED', 'too many requests; retry after the given number of seconds', {
    retry_after_seconds: retryAfterSeconds,
  }, { 'retry-after': String(retryAfterSeconds) });
export const payloadTooLarge = (message: string) => new ApiError(413, 'PAYLOAD_TOO_LARGE', message);
export const unsupportedMediaType = (message: string) => new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', message);
export const headerFieldsTooLarge = (message: string) => new ApiError(431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', message);
export const requestTimeout = (message: string) => new ApiError(408, 'REQUEST_TIMEOUT', message);
export const expectationFailed = (message: string) => new ApiError(417, 'EXPECTATION_FAILED', message);
export const serviceUnavailable = (code: string, message: string) => new ApiError(503, code, message);
export const forbidden = (code: string, message: string) => new ApiError(403, code, message);
