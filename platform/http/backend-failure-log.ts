import type { FastifyBaseLogger } from 'fastify';

/** A failure of our code (or a client library's), not of a backend: it says nothing useful to the caller. */
export const isProgrammingError = (error: unknown) =>
  error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError;

/**
 * Logs why a request was answered 503 because a backend failed or did not answer. That is an
 * expected condition while a backend is out, answered and retried: a warning with the backend's
 * own message, one line each (a broker hang logged ~700 stack traces per run at error level). A
 * programming error is logged as an error with its stack.
 */
export function logBackendFailure(log: FastifyBaseLogger, error: unknown, line: string, fields: Record<string, unknown> = {}): void {
  if (isProgrammingError(error) || !(error instanceof Error)) log.error({ ...fields, err: error }, line);
  else log.warn({ ...fields, failure: `${error.name}: ${error.message}` }, line);
}
