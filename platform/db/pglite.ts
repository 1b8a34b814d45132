import { chmodSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { watchDiskRoom, type DiskRoom, type FreeBytesOf } from '../data-dir/disk-room.js';
import { DATE_OID, INT8_OID, type Db, type QueryResult, type Sql, type TransactionEdges } from './db.js';
import { maintainEmbeddedDatabase } from './embedded-maintenance.js';
import { makeFolder } from '../fs/make-folder.js';

const identity = (value: string) => value;

/** Resolves once the event loop has polled for I/O. */
const giveWay = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Statements that write, alone or inside a transaction: those that start with a writing command,
 * and a WITH whose parts write (`WITH expired AS (DELETE …), claimed AS (INSERT …) SELECT …`).
 * DROP is not among them: it is how room is made again (a replay's schema), and what it logs is small.
 */
const WRITES = /^\s*(INSERT|UPDATE|DELETE|CREATE|ALTER|COPY|COMMENT|TRUNCATE|MERGE|REFRESH|VACUUM|CLUSTER|REINDEX)\b|^\s*WITH\b[\s\S]*\b(INSERT|UPDATE|DELETE|MERGE)\b/i;

/**
 * The engine runs each statement on this thread, and statements queued one behind another run
 * back to back without the event loop polling for I/O in between: while a replay or a catch-up
 * queues statements, a request could not even be read. So each statement first lets the loop
 * poll once (`giveWay`): a request then waits for at most the statement running, not the queue.
 */
function wrap(target: PGlite | Transaction, beforeWrite: (text: string) => void = () => {}): Sql {
  return {
    async query<R>(text: string, params?: unknown[]): Promise<QueryResult<R>> {
      beforeWrite(text);
      await giveWay();
      const result = await target.query<R>(text, params);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    async exec(text: string) {
      beforeWrite(text);
      await giveWay();
      await target.exec(text);
    },
    async copyFrom(table, columns, text, options = {}) {
      beforeWrite('COPY');
      await giveWay();
      if (options.savepoint) await target.exec(`SAVEPOINT ${options.savepoint}`);
      // PGlite reads COPY's input from a blob handed over with the statement.
      await target.query(`COPY ${table} (${columns.join(', ')}) FROM '/dev/blob'`, [], { blob: new Blob([text]) });
    },
  };
}

/**
 * The embedded default: a durable Postgres in `dataDir` (or in memory with `memory://`). With
 * `minFreeBytes`, no write starts while the disk holding it has less room (watchDiskRoom: a full
 * disk hangs the engine, and this thread with it); nor does the engine, on a disk already that full.
 */
export async function openPglite(
  dataDir: string,
  options: { minFreeBytes?: number; freeBytes?: FreeBytesOf; roomIntervalMs?: number; maintenance?: Parameters<typeof maintainEmbeddedDatabase>[1] } = {},
): Promise<Db> {
  let room: DiskRoom | undefined;
  if (!dataDir.startsWith('memory://')) {
    // The engine writes its files readable and writable by everyone (0666): the folder that holds
    // them is this user's alone, so no other user of the machine reaches them.
    makeFolder(dataDir, 0o700);
    chmodSync(dataDir, 0o700);
    if (options.minFreeBytes) {
      room = await watchDiskRoom(dataDir, options.minFreeBytes, { freeBytes: options.freeBytes, intervalMs: options.roomIntervalMs });
      try {
        room.assertRoom();
      } catch (error) {
        room.close();
        throw error;
      }
    }
  }
  const assertRoom = () => room?.assertRoom();
  const beforeWrite = (text: string) => {
    if (WRITES.test(text)) assertRoom();
  };
  const db = await PGlite.create(dataDir, { parsers: { [INT8_OID]: identity, [DATE_OID]: identity } });
  const maintenance = maintainEmbeddedDatabase(wrap(db), options.maintenance);
  return {
    engine: 'pglite',
    ...wrap(db, beforeWrite),
    ...(room && { room: room.reading, refreshRoom: room.refresh }),
    // Each write inside is checked (a refused one rolls the transaction back); reads go on.
    transaction: <T>(fn: (tx: Sql) => Promise<T>) => db.transaction((tx) => fn(wrap(tx, beforeWrite))),
    // The projector's commits and the commands' atomic writes: none starts without room.
    // In process there is no round trip to save: the edges run as statements of their own.
    transactionWithEdges: async <T>({ opening, body }: TransactionEdges<T>) => {
      assertRoom();
      return db.transaction(async (tx) => {
        const opened = await tx.exec(opening);
        const { value, closing } = await body(wrap(tx), opened[opened.length - 1]?.rows ?? []);
        if (closing !== '') await tx.exec(closing);
        return value;
      });
    },
    // In process: one transaction, so no other caller's statement runs between these.
    execAtomically: async (text: string) => {
      assertRoom();
      await db.transaction((tx) => tx.exec(text));
    },
    async listen(channel, onPayload) {
      const unlisten = await db.listen(channel, onPayload);
      return () => unlisten();
    },
    close: async () => {
      room?.close();
      await maintenance.stop();
      await db.close();
    },
  };
}
