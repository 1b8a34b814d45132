import { afterEach, describe, expect, it } from 'vitest';
import { ownLines, runCli } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/stack.js';

// npm run migrate when the database fails under it: a database that cannot be reached or ends the
// session is unavailable (exit 4, run it again once it answers), a statement that fails is a
// failed migration (exit 1); either way nothing was changed.
const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const database of databases.splice(0)) await database.drop();
});

const migrate = (databaseUrl: string) => runCli('platform/db/migrate-cli.ts', [], { DATABASE_URL: databaseUrl, KEY_HASH_SECRET: 'migrate-cli-key-hash-secret-0123456789', LOG_LEVEL: 'silent' });

/** A database not migrated yet whose first schema change runs `action` (an event trigger, in the migration's own session). */
async function databaseWhoseFirstChange(action: string): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrate: false });
  databases.push(database);
  await database.db.exec(`CREATE FUNCTION on_first_change() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN ${action}; END $$;
    CREATE EVENT TRIGGER on_first_change ON ddl_command_start EXECUTE FUNCTION on_first_change()`);
  return database;
}

const migrated = async (database: TestDatabase) =>
  (await database.db.query<{ found: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS found`)).rows[0]!.found;

describe('npm run migrate failures', () => {
  it('exits 4 on a database that cannot be reached, in one line naming DATABASE_URL', async () => {
    const url = `postgres://postgres@127.0.0.1:${await freePort()}/offer_ledger`;
    const result = await migrate(url);
    expect(result.status, result.stderr).toBe(4);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(/^error: cannot start npm run migrate: DATABASE_URL \(postgres:\/\/\[redacted\]@127\.0\.0\.1:\d+\/offer_ledger\): .*ECONNREFUSED/)]);
  });

  it('exits 4 when its session is ended during the migration, in one line naming DATABASE_URL, changing nothing', async () => {
    const database = await databaseWhoseFirstChange('PERFORM pg_terminate_backend(pg_backend_pid())');
    const result = await migrate(database.url);
    expect(result.status, result.stderr).toBe(4);
    expect(ownLines(result.stderr)).toEqual([
      expect.stringMatching(/^error: cannot migrate: DATABASE_URL \(postgres:\/\/\[redacted\]@127\.0\.0\.1:\d+\/offer_ledger_test_\w+\): the database stopped answering \(.+\); nothing was changed .*: run npm run migrate again once it answers$/),
    ]);
    expect(await migrated(database)).toBe(false);
  });

  it('exits 1 when a statement fails, changing nothing', async () => {
    const database = await databaseWhoseFirstChange(`RAISE EXCEPTION 'refused by the test'`);
    const result = await migrate(database.url);
    expect(result.status, result.stderr).toBe(1);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(/^error: migration failed, nothing was changed \(they run in one transaction\): .*refused by the test/)]);
    expect(await migrated(database)).toBe(false);
  });
});
