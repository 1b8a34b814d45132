import { once } from 'node:events';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { PAST_DEADLINE, withinDeadline } from '../async/deadline.js';
import { DATE_OID, INT8_OID, type Db, type QueryResult, type Sql, type TransactionEdges } from './db.js';

const identity = (value: string) => value;

/** Same shapes as PGlite: see db.ts. */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === DATE_OID) return identity;
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
};

function wrap(client: pg.Pool | pg.PoolClient): Sql {
  return {
    query<R>(text: string, params?: unknown[]): Promise<QueryResult<R>> {
      // The callback form: pg's promise form kept every result's rows alive until they reached the
      // old generation (measured: reading a 271k-row catalog in batches left ~95 MB there, ~5 MB
      // this way).
      return new Promise((resolve, reject) => {
        client.query({ text, values: params, types: typeParsers } as pg.QueryConfig, (error: Error | undefined, result: pg.QueryResult) => {
          if (error) reject(error);
          else resolve({ rows: result.rows as R[], rowCount: result.rowCount ?? 0 });
        });
      });
    },
    async exec(text: string) {
      await client.query(text);
    },
    async copyFrom(table, columns, text, options = {}) {
      // COPY needs one session: a pool lends one for the statement.
      const session = client instanceof pg.Pool ? await client.connect() : client;
      // The simple protocol takes the savepoint and the COPY in one message: one round trip fewer.
      const savepoint = options.savepoint ? `SAVEPOINT ${options.savepoint}; ` : '';
      let failure: Error | undefined;
      try {
        const stream = session.query(copyFromStdin(`${savepoint}COPY ${table} (${columns.join(', ')}) FROM STDIN`));
        // pg fails a COPY stream once more when it closes the connection of a failed session (a
        // statement timeout, then the discarded session's end): heard here, not as an unhandled
        // 'error' that would end the process. The first failure is once()'s.
        stream.on('error', () => {});
        const finished = once(stream, 'finish');
        stream.end(text);
        await finished;
      } catch (error) {
        failure = error as Error;
        throw error;
      } finally {
        // A lent session that failed is discarded rather than handed to the next caller.
        if (session !== client) (session as pg.PoolClient).release(failure);
      }
    },
  };
}

export interface PostgresOptions {
  max?: number;
  connectTimeoutMs?: number;
  /**
   * How long a statement may run before the server cancels it (statement_timeout, unless the
   * connection string's options set one); a statement still unanswered QUERY_TIMEOUT_GRACE_MS
   * later gives its session up: the statement fails and the session is
   * discarded (a session whose server stopped answering, while the connection stays open,
   * otherwise holds its pool slot for good). 0 or unset: no limit.
   */
  queryTimeoutMs?: number;
  /**
   * How long a session may sit idle inside an open transaction before the server ends it
   * (idle_in_transaction_session_timeout, unless the connection string's options set one). 0 or
   * unset: no limit. A transaction that waits on other work between its statements on purpose
   * sets its own bound with idleInTransactionAtMost.
   */
  idleInTransactionTimeoutMs?: number;
}

/**
 * What every session runs with, whatever the server, database, role or connection string set:
 * times reach text (a row's text in a checksum, pg's parsers) in UTC and ISO style.
 */
const SESSION_SETTINGS = '-c TimeZone=UTC -c DateStyle=ISO -c IntervalStyle=postgres';

/**
 * What every session starts with unless the connection string's `options` set otherwise: the
 * server probes an idle connection after 10 s and gives it up after 3 unanswered probes 5 s
 * apart. Its own default waits 2 hours, and a session whose client's host vanished (a crash, a
 * network cut: no FIN reaches the server) meanwhile held its connection slot, and the locks of
 * its open transaction (the projector's offset rows, the admin-command lock), for that long.
 */
const SESSION_DEFAULTS = '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3';

/**
 * pg's config for a connection string with SESSION_SETTINGS in force. pg takes a connection
 * string's `options` over the config's, so a URL carrying `options=-c timezone=…` (or any other
 * setting) replaced the UTC of every session: the string's options are moved into the config,
 * after `defaults` (which they may change) and before ours, where the server lets the last one win.
 */
export function sessionConfig(connectionString: string, defaults: string = SESSION_DEFAULTS): { connectionString: string; options: string } {
  const options = (given: string | null) => [defaults, given ?? '', SESSION_SETTINGS].filter((part) => part.trim() !== '').join(' ');
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return { connectionString, options: options(null) };
  }
  const given = url.searchParams.get('options');
  if (given === null) return { connectionString, options: options(null) };
  url.searchParams.delete('options');
  return { connectionString: url.toString(), options: options(given) };
}

/**
 * How much longer than the server's statement_timeout the client waits for an answer. The
 * client's timeout only closes its socket: the server went on running the statement given up on
 * (measured: a pool of 2 with a 500 ms timeout left 10 backends running 15 s statements, and a
 * busy server got a new connection for each, until it refused them all). So the server cancels
 * the statement itself at the limit and the session is kept; the client's timeout, a moment
 * later, is left for a server that stopped answering.
 */
export const QUERY_TIMEOUT_GRACE_MS = 1_000;

/**
 * SESSION_DEFAULTS, with the server's limits for a statement and for a session idle in a
 * transaction when there are (a connection string's options may set others).
 */
export const sessionDefaults = (queryTimeoutMs: number | undefined, idleInTransactionTimeoutMs?: number) =>
  [
    SESSION_DEFAULTS,
    queryTimeoutMs ? `-c statement_timeout=${queryTimeoutMs}` : '',
    idleInTransactionTimeoutMs ? `-c idle_in_transaction_session_timeout=${idleInTransactionTimeoutMs}` : '',
  ].filter((part) => part !== '').join(' ');

/**
 * The statement that gives the transaction under way its own bound on sitting idle between
 * statements (0: none), for one that waits on other work while it holds its locks on purpose
 * (an admin command's turn, a replay's swap): the session's bound is set for short transactions.
 */
export const idleInTransactionAtMost = (ms: number) => `SET LOCAL idle_in_transaction_session_timeout = ${Math.max(0, Math.round(ms))}`;

/** How long the probe's session may take to open or to answer: readiness waits no longer. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * One session for probes (Db.probe), kept open between them (a probe every few seconds need not
 * open a connection each time) and opened again when it drops. Its statements are cancelled by
 * the server, and given up by the client, at PROBE_TIMEOUT_MS: a server that hangs cannot hold it.
 */
function probeSession(connectionString: string): pg.Pool {
  const session = new pg.Pool({
    ...sessionConfig(connectionString, sessionDefaults(PROBE_TIMEOUT_MS)),
    max: 1,
    idleTimeoutMillis: 0,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS + QUERY_TIMEOUT_GRACE_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  session.on('error', () => {});
  session.on('connect', (client) => client.on('error', () => {}));
  return session;
}

export function connectPostgres(connectionString: string, options: PostgresOptions = {}): Db {
  const pool = new pg.Pool({
    ...sessionConfig(connectionString, sessionDefaults(options.queryTimeoutMs, options.idleInTransactionTimeoutMs)),
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 0,
    // pg fails a statement unanswered this long; the pool discards a session released with that error.
    ...(options.queryTimeoutMs ? { query_timeout: options.queryTimeoutMs + QUERY_TIMEOUT_GRACE_MS } : {}),
    // TCP keepalive: an idle pooled connection to a server that went away is found dead and
    // replaced instead of handed to the next query.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // Nor one dropped in the instant it is handed from one caller to the next: pg-pool takes its own
  // listener off before a waiting pool.connect() resumes (a microtask later), and a backend
  // terminated right after a statement sends its FATAL in the same read as that statement's end,
  // parsed in between with nobody listening (an uncaught exception, seen with sessions ended under
  // load). Heard here, the session is simply not queryable: its next statement fails, and the
  // caller discards it (inTransaction) or the pool does.
  pool.on('connect', (client) => client.on('error', () => {}));
  const base = wrap(pool);
  let probes: pg.Pool | undefined;
  return {
    engine: 'postgres',
    ...base,
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      return inTransaction(pool, async (client) => {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        return result;
      });
    },
    async execAtomically(text: string) {
      // The simple protocol runs a query of several statements as one implicit transaction.
      await pool.query(text);
    },
    async transactionWithEdges<T>({ opening, body }: TransactionEdges<T>): Promise<T> {
      return inTransaction(pool, async (client) => {
        // Parameter-free text goes by the simple protocol, which takes several statements at once.
        const opened = await client.query(`BEGIN;\n${opening}`);
        const results = opened as unknown as pg.QueryResult | pg.QueryResult[];
        const last = Array.isArray(results) ? results[results.length - 1]! : results;
        const { value, closing } = await body(wrap(client), last.rows);
        await client.query(closing === '' ? 'COMMIT' : `${closing};\nCOMMIT`);
        return value;
      });
    },
    listen: (channel, onPayload, onHearing) => listenOn(connectionString, channel, onPayload, onHearing),
    // Not on the pool: requests holding every session of it would hold the probe too, and a busy
    // process would read as a database that does not answer.
    async probe(text) {
      probes ??= probeSession(connectionString);
      await probes.query(text);
    },
    async close() {
      await Promise.all([pool.end(), probes?.end()]);
    },
  };
}

/**
 * A pooled session for one transaction: rolled back when `work` throws, and discarded when the
 * session broke meanwhile.
 */
async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A session that ends while checked out (Postgres restarted, the backend terminated) is also
  // an 'error' event on the client, and the pool listens only on idle ones: unheard, it would
  // end the process. Heard, the statement fails and the transaction rolls back.
  let broken: Error | undefined;
  const onError = (error: Error) => void (broken ??= error);
  client.on('error', onError);
  try {
    return await work(client);
  } catch (error) {
    // A session whose ROLLBACK fails too (its statement timed out and it no longer answers) is
    // discarded like a broken one: handed back, it would hold the next caller behind that statement.
    await client.query('ROLLBACK').catch((rollbackError: Error) => void (broken ??= rollbackError));
    throw error;
  } finally {
    client.off('error', onError);
    // A broken session is discarded, not handed to the next caller.
    client.release(broken);
  }
}

/** How often a listening session that heard nothing is asked to answer, and how long it has to. */
const LISTEN_PROBE_EVERY_MS = 5_000;
const LISTEN_PROBE_TIMEOUT_MS = 3_000;
/** How long opening a listening session may take before it is tried again. */
const LISTEN_CONNECT_TIMEOUT_MS = 10_000;

/**
 * LISTEN needs a session of its own (a pooled connection would be handed to others). A dropped
 * session is opened again, retrying with a growing pause until it works; what was notified
 * meanwhile is lost, so when the session drops and after every (re)connect the listener gets an
 * empty payload and re-reads state (the watermarks and caches do).
 */
async function listenOn(
  connectionString: string,
  channel: string,
  onPayload: (payload: string) => void,
  onHearing: (hearing: boolean) => void = () => {},
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let probe: NodeJS.Timeout | undefined;
  const listenStatement = `LISTEN "${channel.replace(/"/g, '""')}"`;
  const connect = async () => {
    // A server that takes the connection but never answers must not hold the reconnect for good.
    const next = new pg.Client({ ...sessionConfig(connectionString), connectionTimeoutMillis: LISTEN_CONNECT_TIMEOUT_MS });
    let dropped = false;
    // Monotonic: a wall clock stepped back must not excuse a quiet session from its probe for the step.
    let heardAt = performance.now();
    const drop = () => {
      if (dropped) return;
      dropped = true;
      clearInterval(probe);
      next.end().catch(() => {});
      if (client === next) {
        client = undefined;
        // From now until the next connect nothing is heard: whoever keeps state by these
        // notifications (caches) must stop trusting it now, not only once the session is back.
        onHearing(false);
        onPayload('');
      }
      reconnect(0);
    };
    next.on('notification', (message) => {
      heardAt = performance.now();
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
    });
    next.on('error', drop);
    next.on('end', drop);
    try {
      await next.connect();
      await next.query(listenStatement);
    } catch (error) {
      dropped = true;
      await next.end().catch(() => {});
      throw error;
    }
    if (stopped) {
      dropped = true;
      await next.end();
      return;
    }
    client = next;
    onHearing(true);
    onPayload('');
    // A session whose server stopped answering while the connection stays open raises no event:
    // its notifications just stop, and every caller waiting on them times out. A quiet session
    // proves itself by answering; one that does not is dropped and opened again.
    let probing = false;
    clearInterval(probe);
    probe = setInterval(() => {
      if (probing || dropped || performance.now() - heardAt < LISTEN_PROBE_EVERY_MS / 2) return;
      probing = true;
      // LISTEN again: a no-op that answers, and the session still shows as the listening one (pg_stat_activity.query).
      void withinDeadline(next.query(listenStatement), LISTEN_PROBE_TIMEOUT_MS)
        .then((answer) => (answer === PAST_DEADLINE ? drop() : void (heardAt = performance.now())), drop)
        .finally(() => (probing = false));
    }, LISTEN_PROBE_EVERY_MS);
    probe.unref();
  };
  const reconnect = (attempt: number) => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(() => reconnect(attempt + 1));
    }, Math.min(500 * 2 ** attempt, 10_000));
    retry.unref();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    clearInterval(probe);
    const current = client;
    client = undefined;
    await current?.end().catch(() => {});
  };
}
