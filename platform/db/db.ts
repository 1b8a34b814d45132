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
  /**
   * Loads rows given in COPY's text format (copy-rows.ts writes it) into these columns of a
   * table, setting `savepoint` first when given (in the same round trip where the engine allows).
   * Names come from code, never from input; they are written into the statement as given.
   */
  copyFrom(table: string, columns: readonly string[], text: string, options?: { savepoint?: string }): Promise<void>;
}

/**
 * Statements that travel with BEGIN and COMMIT instead of in round trips of their own (a
 * projector's batch pays for every round trip on a busy machine). Both are parameter-free SQL:
 * build them with escapeLiteral/escapeIdentifier, never from unescaped input.
 */
export interface TransactionEdges<T> {
  /** Run right after BEGIN; the rows of its last statement reach the body. */
  opening: string;
  /** The body's work, then the statements to run right before COMMIT ('' for none). */
  body(tx: Sql, opened: Record<string, unknown>[]): Promise<{ value: T; closing: string }>;
}

export interface Db extends Sql {
  readonly engine: 'postgres' | 'pglite';
  /** Runs fn in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** One transaction as `transaction`, with its first and last statements sent along with BEGIN and COMMIT. */
  transactionWithEdges<T>(edges: TransactionEdges<T>): Promise<T>;
  /**
   * Several parameter-free statements (no BEGIN or COMMIT of their own) as one transaction: all
   * or none take effect. On a server they travel in one round trip, which a multi-statement
   * query runs as one transaction. Build them with escapeLiteral/escapeIdentifier.
   */
  execAtomically(text: string): Promise<void>;
  /**
   * Receives NOTIFY payloads of a channel (sent by any process on this database) until the
   * returned function is called. A notification sent inside a transaction arrives at its commit.
   * An empty payload says notifications may have been missed (the listening session dropped, or
   * was opened again): re-read whatever they stand for. `onHearing(false)` comes just before the
   * empty payload of a drop and `onHearing(true)` just before that of a reopening: in between
   * nothing is heard, so whatever is read then may change unheard.
   */
  listen(channel: string, onPayload: (payload: string) => void, onHearing?: (hearing: boolean) => void): Promise<() => Promise<void>>;
  /**
   * Runs a short read (`text`, parameter-free) on a session of its own, outside the pool: whether
   * the database answers, however busy this process's own sessions are (readiness). Absent: the
   * engine has no pool to be busy (the embedded one); see `probe` below.
   */
  probe?(text: string): Promise<void>;
  /** The embedded engine's room on its disk, when it watches it (DATA_DIR_MIN_FREE_MB). */
  room?(): { free_bytes: number; min_free_bytes: number; room: boolean };
  /** Reads that room again now (it is read every second anyway). */
  refreshRoom?(): Promise<void>;
  close(): Promise<void>;
}

export const INT8_OID = 20;
export const DATE_OID = 1082;

/** Whether the database answers `text` (default `SELECT 1`): on its probe session where it has one (Db.probe). */
export async function probe(db: Db, text = 'SELECT 1'): Promise<void> {
  if (db.probe) await db.probe(text);
  else await db.query(text);
}
