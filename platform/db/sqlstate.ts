/** The Postgres error codes (SQLSTATE) the service acts on, and how to read one off an error. */
export const SQLSTATE = {
  uniqueViolation: '23505',
  undefinedTable: '42P01',
  /** lock_timeout passed (or NOWAIT found the lock taken). */
  lockNotAvailable: '55P03',
  /** The statement was cancelled (pg_cancel_backend, statement_timeout). */
  queryCanceled: '57014',
} as const;

/** Whether `error` is a Postgres error of this SQLSTATE. */
export const hasSqlState = (error: unknown, code: (typeof SQLSTATE)[keyof typeof SQLSTATE]) => (error as { code?: unknown } | null)?.code === code;
