import type { FastifyRequest } from 'fastify';
import { resultWithin } from '../async/deadline.js';
import { logBackendFailure } from './backend-failure-log.js';
import { ApiError, serviceUnavailable } from './errors.js';

/**
 * How long one request's reads may take in all. Longer than the waits for a card or link minted a
 * moment ago (2 s), far shorter than a connection to a Postgres that stopped answering takes to
 * fail (TCP gives up after minutes).
 */
const READ_DEADLINE_MS = 5_000;

/**
 * Runs a route's reads: our refusals (ApiError) pass through; a read model that fails, or does not
 * answer within READ_DEADLINE_MS, is a 503 `code` for the whole request (no partial success), with
 * the failure in the log.
 */
export function unavailableOnFailure(code: string, message: string, logLine: string) {
  return async <T>(request: FastifyRequest, read: () => Promise<T>): Promise<T> => {
    try {
      return await resultWithin(read(), READ_DEADLINE_MS, () => new Error(`no answer within ${READ_DEADLINE_MS} ms`));
    } catch (error) {
      if (error instanceof ApiError) throw error;
      logBackendFailure(request.log, error, logLine);
      throw serviceUnavailable(code, message);
    }
  };
}
