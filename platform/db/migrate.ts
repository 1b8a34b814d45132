import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Umzug, type UmzugStorage } from 'umzug';
import type { Db, Sql } from './db.js';
import { ADVISORY_LOCK_KEYS } from './advisory-locks.js';
import { hasSqlState, SQLSTATE } from './sqlstate.js';
import { compareCodeUnits } from '../text/code-unit-order.js';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Folders whose `migrations/*.sql` files make up the schema; ordered by file name (timestamp prefix). */
const migrationRoots = ['platform', 'commands', 'projections', 'reference'];
function findSqlMigrations(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...findSqlMigrations(path));
    else if (basename(dir) === 'migrations' && entry.endsWith('.sql')) found.push(path);
  }
  return found;
}

function listMigrations(): { name: string; path: string }[] {
  return migrationRoots
    .flatMap((root) => findSqlMigrations(join(projectRoot, root)))
    .map((path) => ({ name: basename(path, '.sql'), path }))
    .sort((a, b) => compareCodeUnits(a.name, b.name));
}

function sqlStorage(): UmzugStorage<Sql> {
  return {
    async logMigration({ name, context }) {
      await context.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
    },
    async unlogMigration({ name, context }) {
      await context.query('DELETE FROM schema_migrations WHERE name = $1', [name]);
    },
    async executed({ context }) {
      const { rows } = await context.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      return rows.map((row) => row.name);
    },
  };
}

/** One migration: its name (ordered, recorded in schema_migrations) and its SQL. */
export interface Migration {
  name: string;
  /** Where it comes from, as said in the log. */
  source: string;
  sql(): string;
}

const projectMigrations = (): Migration[] =>
  listMigrations().map(({ name, path }) => ({ name, source: relative(projectRoot, path), sql: () => readFileSync(path, 'utf8') }));

/**
 * How long one attempt waits for a table lock. A migration's ALTER waits for the ACCESS EXCLUSIVE
 * lock behind whatever reads the table (an export, an analyst's query, another build's processes
 * still serving), and every statement on that table queues behind the waiting ALTER: without a
 * limit one long read stalled every request on the table for as long as it ran. So an attempt
 * gives up after this, rolls back (letting the queue go) and is tried again.
 */
export const MIGRATION_LOCK_TIMEOUT_MS = 2_000;
/** Pauses between attempts, growing to the last; readers run meanwhile. */
const MIGRATION_RETRY_PAUSES_MS = [250, 500, 1_000, 2_000, 5_000];

export interface MigrateOptions {
  /** The migrations to apply (default: the project's `migrations/*.sql` files). */
  migrations?: Migration[];
  /** MIGRATION_LOCK_TIMEOUT_MS unless given. */
  lockTimeoutMs?: number;
}

/**
 * Applies pending migrations in one transaction, under an advisory lock so the API and the
 * projector can start together. A table lock that does not come within the lock timeout rolls
 * the attempt back; it is tried again, said in the log, until it goes through. Returns the names
 * applied.
 */
export async function migrate(db: Db, log: (line: string) => void = () => {}, options: MigrateOptions = {}): Promise<string[]> {
  const migrations = options.migrations ?? projectMigrations();
  const lockTimeoutMs = options.lockTimeoutMs ?? MIGRATION_LOCK_TIMEOUT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await migrateOnce(db, log, migrations, lockTimeoutMs);
    } catch (error) {
      // Umzug wraps a migration's failure; the server's refusal is its cause.
      const cause = (error as { cause?: unknown } | null)?.cause ?? error;
      if (db.engine !== 'postgres' || !hasSqlState(cause, SQLSTATE.lockNotAvailable)) throw error;
      const pause = MIGRATION_RETRY_PAUSES_MS[Math.min(attempt, MIGRATION_RETRY_PAUSES_MS.length - 1)]!;
      log(`migration: a table it changes stayed in use by another session for ${lockTimeoutMs} ms (a long query or transaction); rolled back, trying again in ${pause} ms`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

async function migrateOnce(db: Db, log: (line: string) => void, migrations: Migration[], lockTimeoutMs: number): Promise<string[]> {
  return db.transaction(async (tx) => {
    if (db.engine === 'postgres') {
      // The turn among starting processes is waited for without limit (another one may be
      // migrating); only the table locks after it are bounded.
      await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK_KEYS.migrations]);
      await tx.exec(`SET LOCAL lock_timeout = '${Math.max(1, Math.round(lockTimeoutMs))}ms'`);
    }
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const umzug = new Umzug<Sql>({
      context: tx,
      storage: sqlStorage(),
      logger: undefined,
      migrations: migrations.map((migration) => ({
        name: migration.name,
        up: async ({ context }) => {
          log(`migrating ${migration.source}`);
          await context.exec(migration.sql());
        },
      })),
    });
    const applied = await umzug.up();
    return applied.map((migration) => migration.name);
  });
}
