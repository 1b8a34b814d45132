/**
 * One small SQL interface over the two Postgres engines we run on: a real server (pg) and the
 * embedded one (PGlite). Both return the same JavaScript shapes: int8 and numeric as strings
 * (exact money and offsets), dates as 'YYYY-MM-DD' strings, timestamps as Date, bytea as bytes.
 */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Sql {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<R>>;
  /** Several statements without parameters (migrations, DDL). */
  exec(text: string): Promise<void>;
}

export interface Db extends Sql {
  readonly engine: 'postgres' | 'pglite';
  /** Runs fn in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Receives NOTIFY payloads of a channel (sent by any process on this database) until the
   * returned function is called. A notification sent inside a transaction arrives at its commit.
   * An empty payload says notifications may have been missed (the listening session was opened
   * again): re-read whatever they stand for.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export const INT8_OID = 20;
export const DATE_OID = 1082;
