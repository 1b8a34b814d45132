import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// ledger:verify when there is nothing to verify, and when the database fails under it: each
// says so with its own exit code (2, 4), as the command's help lists them.
const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const database of databases.splice(0)) await database.drop();
});

const verify = (database: TestDatabase) => runCli('projections/ledger/verify-cli.ts', [], { DATABASE_URL: database.url, KEY_HASH_SECRET: 'verify-failures-key-hash-secret-0123456789', LOG_LEVEL: 'silent' });

describe('ledger:verify failures', () => {
  it('exits 2 on a database that holds no ledger', async () => {
    const database = await createTestDatabase({ migrate: false });
    databases.push(database);
    const result = await verify(database);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/this database has no ledger \(check DATABASE_URL or DATA_DIR\)/);
  });

  it('exits 4 when its session is ended while it reads the ledger, saying to check the database', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    // Reading the decision log ends the reading session, as a restarted or failed server would.
    await database.db.query(`ALTER TABLE postback_log RENAME TO postback_log_kept;
      CREATE VIEW postback_log AS SELECT kept.* FROM (SELECT pg_terminate_backend(pg_backend_pid())) AS ended LEFT JOIN postback_log_kept AS kept ON true`);
    const result = await verify(database);
    expect(result.status, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/^error: ledger verification failed to run: .*; the database failed while it was read: check it .* and run it again; nothing was changed/m);
  });
});
