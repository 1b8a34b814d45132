import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { Db } from '../../platform/db/db.js';
import { migrate } from '../../platform/db/migrate.js';
import { connectPostgres } from '../../platform/db/postgres.js';

export interface TestDatabase {
  db: Db;
  url: string;
  name: string;
  /**
   * Ends every session on this database, as a Postgres restart or a network cut would (from an
   * admin connection, so other databases are untouched); resolves with how many were ended.
   */
  dropConnections(): Promise<number>;
  /**
   * Runs `during` while this database takes no connection (ALLOW_CONNECTIONS false, every session
   * ended), as a Postgres that is down would be for this test alone; then lets connections in again.
   */
  whileRefusing(during: () => Promise<void>): Promise<void>;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function admin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function terminateSessions(adminUrl: string, database: string): Promise<number> {
  return admin(adminUrl, async (client) => {
    const { rows } = await client.query<{ ended: boolean }>(
      'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    return rows.filter((row) => row.ended).length;
  });
}

/** A fresh, migrated Postgres database of its own for one test file; drop() removes it. */
export async function createTestDatabase(options: { migrate?: boolean; icuLocale?: string } = {}): Promise<TestDatabase> {
  const adminUrl = inject('stack').postgresAdminUrl;
  const name = `offer_ledger_test_${randomBytes(5).toString('hex')}`;
  // icuLocale: a database whose default collation is that language's (an operator's choice), not C.
  const collation = options.icuLocale ? ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${options.icuLocale.replace(/'/g, "''")}' LOCALE 'C.UTF-8'` : '';
  await admin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}${collation}`));
  const url = withDatabase(adminUrl, name);
  const db = connectPostgres(url);
  if (options.migrate !== false) await migrate(db);
  return {
    db,
    url,
    name,
    dropConnections: () => terminateSessions(adminUrl, name),
    async whileRefusing(during) {
      await admin(adminUrl, (client) => client.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`));
      try {
        await terminateSessions(adminUrl, name);
        await during();
      } finally {
        await admin(adminUrl, (client) => client.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`));
      }
    },
    async drop() {
      await db.close();
      await admin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Runs `during` while `table` cannot be read (renamed away), then puts it back: a read model that fails. */
export async function withoutTable(db: Db, table: string, during: () => Promise<void>): Promise<void> {
  await db.query(`ALTER TABLE ${table} RENAME TO ${table}_away`);
  try {
    await during();
  } finally {
    await db.query(`ALTER TABLE ${table}_away RENAME TO ${table}`);
  }
}
