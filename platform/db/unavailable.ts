/**
 * SQLSTATEs of a server that cannot serve this session (class 08: the connection failed; the
 * server shutting down, crashed or starting; no connection slot left): the statement was not at
 * fault, the database is unavailable.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Socket failures of a connection to the server (never the file system's, such as ENOSPC). */
const NETWORK_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** What pg says, without a code, when a session was cut, could not be opened in time, or its answer never came. */
const LOST_SESSION = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout)/;

/**
 * Whether a Postgres (DATABASE_URL) failure is the database being unavailable (exit 4, retry once
 * it answers) rather than a failure of the statement or of the work around it.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || NETWORK_ERRNOS.has(code);
  return LOST_SESSION.test(error.message);
}
