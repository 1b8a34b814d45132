import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Umzug, type UmzugStorage } from 'umzug';
import type { Db, Sql } from './db.js';
import { ADVISORY_LOCK_KEYS } from './advisory-locks.js';
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

/**
 * Applies pending migrations in one transaction, under an advisory lock so the API and the
 * projector can start together. Returns the names applied.
 */
export async function migrate(db: Db, log: (line: string) => void = () => {}): Promise<string[]> {
  return db.transaction(async (tx) => {
    if (db.engine === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK_KEYS.migrations]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const umzug = new Umzug<Sql>({
      context: tx,
      storage: sqlStorage(),
      logger: undefined,
      migrations: listMigrations().map(({ name, path }) => ({
        name,
        path,
        up: async ({ context }) => {
          log(`migrating ${relative(projectRoot, path)}`);
          await context.exec(readFileSync(path, 'utf8'));
        },
      })),
    });
    const applied = await umzug.up();
    return applied.map((migration) => migration.name);
  });
}
