import type { Db, Sql } from '../db/db.js';
import { escapeIdentifier, escapeLiteral, qualified } from '../db/identifier.js';
import { positionsIn, type Positions } from './positions.js';

/** The schema the live read models are in (the connection's first on its search path). */
export async function currentSchema(sql: Sql): Promise<string> {
  const { rows } = await sql.query<{ schema: string }>('SELECT current_schema() AS schema');
  return rows[0]!.schema;
}

/**
 * An empty copy of a table in another schema: the same columns, defaults, checks and comments
 * (LIKE), and the same keys and indexes under the same names, so the copy can later take the
 * original's place without anything (a migration naming an index) noticing. With `deferIndexes`
 * the indexes that back no key are left out and their statements returned, to be built once the
 * rows are in (buildIndexes).
 */
async function copyTableStructure(tx: Sql, from: string, to: string, table: string, deferIndexes: boolean): Promise<string[]> {
  const source = qualified(from, table);
  const target = qualified(to, table);
  // Read models have neither: a copy without them would not be the same table, so say so.
  const { rows: unsupported } = await tx.query<{ what: string }>(
    `SELECT 'foreign key ' || conname AS what FROM pg_constraint WHERE contype = 'f' AND (conrelid = $1::regclass OR confrelid = $1::regclass)
     UNION ALL SELECT 'trigger ' || tgname FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal`,
    [source],
  );
  if (unsupported.length > 0) throw new Error(`cannot rebuild ${table} beside the live one: it has ${unsupported.map((row) => row.what).join(', ')}`);
  await tx.query(`CREATE TABLE ${target} (LIKE ${source} INCLUDING ALL EXCLUDING INDEXES)`);
  const { rows: constraints } = await tx.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
     WHERE conrelid = $1::regclass AND contype IN ('p', 'u', 'x') ORDER BY conname`,
    [source],
  );
  for (const { name, definition } of constraints) await tx.query(`ALTER TABLE ${target} ADD CONSTRAINT ${escapeIdentifier(name)} ${definition}`);
  const { rows: indexes } = await tx.query<{ definition: string }>(
    `SELECT pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i
     WHERE i.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
     ORDER BY i.indexrelid`,
    [source],
  );
  const deferred: string[] = [];
  for (const { definition } of indexes) {
    // `CREATE [UNIQUE] INDEX name ON schema.table USING ...`: the same index on the copy.
    const onTarget = definition.replace(/ ON (ONLY )?\S+ USING /, ` ON ${target} USING `);
    if (onTarget === definition) throw new Error(`cannot copy index of ${table}: ${definition}`);
    if (deferIndexes) deferred.push(onTarget);
    else await tx.query(onTarget);
  }
  return deferred;
}

/**
 * A fresh schema holding empty copies of `tables` and a private projection_offsets, in one
 * transaction. With `deferIndexes`, the tables get only the indexes of their keys (all a
 * projection reads its own rows by, and what ON CONFLICT needs); the statements of the others
 * are returned for buildIndexes. Postgres builds an index over loaded rows in one sort, several
 * times cheaper than keeping it up to date row by row: a replay of a million events took 13.4 s
 * with every index kept up to date and 10.9 s with the deferred ones built at the end.
 */
export async function createReplaySchema(db: Db, live: string, schema: string, tables: string[], options: { deferIndexes?: boolean; running?: boolean } = {}): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query(`CREATE SCHEMA ${escapeIdentifier(schema)}`);
    // Marked before anyone can see it: nobody lists or drops the schema of a replay under way.
    if (options.running) await markRunning(tx, schema);
    const deferred: string[] = [];
    for (const table of tables) deferred.push(...(await copyTableStructure(tx, live, schema, table, options.deferIndexes ?? false)));
    await copyTableStructure(tx, live, schema, 'projection_offsets', false);
    return deferred;
  });
}

/**
 * Runs the index statements createReplaySchema deferred, one transaction each, with room to sort
 * in memory (Postgres' default of 64 MB spills to disk past a few hundred thousand rows), on
 * INDEX_BUILD_LANES connections at once: one large table's index need not wait for the others.
 * Once `signal` is aborted no further one is started.
 */
export async function buildIndexes(db: Db, statements: string[], signal?: AbortSignal): Promise<void> {
  const waiting = [...statements];
  const lane = async () => {
    for (let statement = waiting.shift(); statement !== undefined && !signal?.aborted; statement = waiting.shift()) {
      const sql = statement;
      await db.transaction(async (tx) => {
        await tx.query(`SET LOCAL maintenance_work_mem = '${INDEX_BUILD_MEMORY}'`);
        await tx.query(sql);
      }).catch((error: unknown) => {
        // The other lane takes no further statement: the replay is failing (or cancelled) already.
        waiting.length = 0;
        throw error;
      });
    }
  };
  // Settled only once both lanes have stopped: a cancel goes on cancelling until then.
  const lanes = await Promise.allSettled(Array.from({ length: INDEX_BUILD_LANES }, lane));
  const failed = lanes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Gathers the planner's statistics of the rebuilt tables: a table filled by a rebuild has none
 * until autovacuum comes round, and without them Postgres guesses (a lookup of a list of values
 * in a column that is not unique became a scan of the whole table), so the swapped-in read
 * models, and a kept schema analysts query, would be read slowly in their first minutes.
 */
export async function analyzeTables(db: Db, schema: string, tables: string[]): Promise<void> {
  for (const table of tables) await db.query(`ANALYZE ${qualified(schema, table)}`);
}

/** One per core of a small database machine; each build also sorts with parallel workers where Postgres chooses to. */
const INDEX_BUILD_LANES = 2;

/** Per index being built: the two lanes' builds together take up to twice this. */
const INDEX_BUILD_MEMORY = '256MB';

/**
 * Copies the live tables and their projections' positions as of one instant (a REPEATABLE READ
 * snapshot: the projectors commit rows and offsets together, so the copy is exactly the read
 * model at those positions). Holds no lock that stops the projectors or the readers.
 */
export async function snapshotLive(db: Db, live: string, copy: string, tables: string[], projections: string[]): Promise<Positions> {
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const positions = await positionsIn(tx, live, projections);
    await tx.query(`CREATE SCHEMA ${escapeIdentifier(copy)}`);
    for (const table of tables) await tx.query(`CREATE TABLE ${qualified(copy, table)} AS TABLE ${qualified(live, table)}`);
    return positions;
  });
}

export async function schemaExists(sql: Sql, schema: string): Promise<boolean> {
  const { rows } = await sql.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  return rows.length > 0;
}

export async function dropSchemas(db: Sql, schemas: string[]): Promise<void> {
  for (const schema of schemas) await db.query(`DROP SCHEMA IF EXISTS ${escapeIdentifier(schema)} CASCADE`);
}

/** What a replay names the schemas it creates: replay_<time>, and its _live and _retired companions. */
export const REPLAY_SCHEMA_NAME = /^replay_[0-9a-z_]{1,50}$/;

/** Whether a schema a replay kept holds `table` (and its own projection_offsets, as a rebuilt schema does). */
export async function keptReplayTable(sql: Sql, schema: string, table: string): Promise<{ table: boolean; offsets: boolean }> {
  const { rows } = await sql.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND c.relkind = 'r'`,
    [schema, [table, 'projection_offsets']],
  );
  const names = rows.map((row) => row.name);
  return { table: names.includes(table), offsets: names.includes('projection_offsets') };
}

/**
 * A replay under way says so on its schema (a comment holding its last heartbeat) and renews it
 * every RUNNING_HEARTBEAT_MS; its companions (`_live`, `_retired`) count as under way with it.
 * A heartbeat older than RUNNING_STALE_MS is a replay that stopped without cleaning up (killed):
 * its schemas are kept ones, to look at or drop.
 */
const RUNNING_MARK = 'offer-ledger replay under way, heartbeat ';
const RUNNING_HEARTBEAT_MS = 5_000;
const RUNNING_STALE_MS = 60_000;

async function markRunning(sql: Sql, schema: string): Promise<void> {
  await sql.query(`COMMENT ON SCHEMA ${escapeIdentifier(schema)} IS ${escapeLiteral(`${RUNNING_MARK}${new Date().toISOString()}`)}`);
}

/**
 * Keeps a running replay's mark fresh until the returned function is called, which also removes
 * the mark when the schema stays (kept for queries, or by --keep) from a replay that `finished`.
 * A failed replay's schema that could not be dropped keeps its mark, to go stale as a partial
 * rebuild: without it, it read as a finished one, which export accepts.
 */
export function heartbeatWhileRunning(db: Db, schema: string): (outcome: { finished: boolean }) => Promise<void> {
  let beat = Promise.resolve();
  const timer = setInterval(() => {
    // A beat that fails (the schema already dropped, a busy database) is retried by the next one.
    beat = markRunning(db, schema).catch(() => {});
  }, RUNNING_HEARTBEAT_MS);
  timer.unref();
  return async ({ finished }) => {
    clearInterval(timer);
    await beat;
    if (!finished) return;
    // A mark left behind (the database failed here) goes stale in a minute: never worth the replay's own error.
    await (async () => {
      if (await schemaExists(db, schema)) await db.query(`COMMENT ON SCHEMA ${escapeIdentifier(schema)} IS NULL`);
    })().catch(() => {});
  };
}

/** What a kept schema's comment starts with: what it holds follows (describeKeptSchema). */
const ABOUT_MARK = 'offer-ledger replay: ';

/** Says on a kept schema what it holds (a point in time, the live copy compared with…), for whoever lists them later. */
export async function describeKeptSchema(sql: Sql, schema: string, about: string): Promise<void> {
  await sql.query(`COMMENT ON SCHEMA ${escapeIdentifier(schema)} IS ${escapeLiteral(`${ABOUT_MARK}${about}`)}`);
}

/**
 * The kept schemas with what each holds, oldest first. A replay that stopped without finishing
 * (killed) left its last heartbeat, on its schema or the one its `_live` copy belongs to: that
 * one holds a partial rebuild, said so. null: nothing to say (a schema described before this build).
 */
export async function describedKeptSchemas(sql: Sql): Promise<{ schema: string; about: string | null }[]> {
  const replays = await replayRows(sql);
  const kept = new Set(classify(replays).kept);
  const marks = new Map(replays.map((row) => [row.name, row.mark]));
  const about = (name: string): string | null => {
    const own = marks.get(name) ?? null;
    if (own?.startsWith(ABOUT_MARK)) return own.slice(ABOUT_MARK.length);
    const heartbeat = own ?? marks.get(replayOf(name)) ?? null;
    if (!heartbeat?.startsWith(RUNNING_MARK)) return null;
    const lastBeat = heartbeat.slice(RUNNING_MARK.length);
    if (isRetired(name)) return `the read models the swap of ${replayOf(name)} retired: the swap went through (the rebuilt ones are live), then its replay stopped before it finished (its last heartbeat ${lastBeat})`;
    return `left by a replay that stopped before it finished (its last heartbeat ${lastBeat}): partial, drop it`;
  };
  return replays.filter((row) => kept.has(row.name)).map((row) => ({ schema: row.name, about: about(row.name) }));
}

/**
 * Why a replay schema's tables are not a finished rebuild, or undefined when they are: a replay
 * still writes it, or one that stopped before it finished left it (its heartbeat, on it or on
 * the schema its `_live` copy belongs to).
 */
export async function unfinishedReplay(sql: Sql, schema: string): Promise<string | undefined> {
  const marks = new Map((await replayRows(sql)).map((row) => [row.name, row.mark]));
  const heartbeat = [marks.get(schema), marks.get(replayOf(schema))].find((mark) => mark?.startsWith(RUNNING_MARK));
  if (!heartbeat) return undefined;
  if (isFreshMark(heartbeat)) return 'a replay is still writing it; wait for it to finish';
  // Only a committed swap creates it, with the tables that were live until then: whole, whatever happened to the replay after.
  if (isRetired(schema)) return undefined;
  return `a replay stopped before it finished it (its last heartbeat ${heartbeat.slice(RUNNING_MARK.length)}): its tables are partial; drop it (npm run replay -- --drop ${schema}) and replay again`;
}

/** The replay schemas: those kept (point in time, --keep, an interrupted replay's) and those a replay is still writing, oldest first. */
export async function replaySchemas(sql: Sql): Promise<{ kept: string[]; running: string[] }> {
  return classify(await replayRows(sql));
}

async function replayRows(sql: Sql): Promise<{ name: string; mark: string | null }[]> {
  const { rows } = await sql.query<{ name: string; mark: string | null }>(
    "SELECT nspname AS name, obj_description(oid, 'pg_namespace') AS mark FROM pg_namespace WHERE nspname LIKE 'replay\\_%' ORDER BY nspname",
  );
  return rows.filter((row) => REPLAY_SCHEMA_NAME.test(row.name));
}

/** The replay schema a `_live` or `_retired` companion belongs to (itself for a replay's own). */
const replayOf = (name: string) => name.replace(/_(live|retired)$/, '');

/** A swap's `_retired` companion: the tables that were live before it. */
const isRetired = (name: string) => name.endsWith('_retired');

function classify(replays: { name: string; mark: string | null }[]): { kept: string[]; running: string[] } {
  const running = new Set(replays.filter((row) => isFreshMark(row.mark)).map((row) => row.name));
  const underWay = (name: string) => running.has(name) || running.has(replayOf(name));
  return { kept: replays.map((row) => row.name).filter((name) => !underWay(name)), running: replays.map((row) => row.name).filter(underWay) };
}

function isFreshMark(mark: string | null): boolean {
  if (!mark?.startsWith(RUNNING_MARK)) return false;
  const beat = Date.parse(mark.slice(RUNNING_MARK.length));
  return Number.isFinite(beat) && Date.now() - beat < RUNNING_STALE_MS;
}

/** The schemas replays kept (point in time, --keep, an interrupted replay's), oldest first; not those of replays under way. */
export async function keptReplaySchemas(sql: Sql): Promise<string[]> {
  return (await replaySchemas(sql)).kept;
}
