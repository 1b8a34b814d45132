import { smallCliArgs } from '../cli/small-cli.js';
import { loadConfigOrExit } from '../config/config.js';
import { openDatabase } from '../runtime.js';
import { ExitCode, describeFailure, exitOnStartupFailure, printable } from '../startup.js';
import { migrate } from './migrate.js';
import { isDatabaseUnavailable } from './unavailable.js';
import { reportUnexpectedFailures } from '../cli/unexpected-failure.js';

reportUnexpectedFailures();

/** `npm run migrate`: applies pending migrations to the configured database (start-up does the same). */
smallCliArgs({
  usage: `usage: npm run migrate
Applies the pending migrations to the configured database (DATABASE_URL, else the embedded one in
DATA_DIR), in one transaction. Every process does the same at start-up.
Exit codes: 0 applied (or none pending); 2 a bad setting; 4 the database cannot be reached or
stops answering (DATA_DIR held by another process too): run it again once it answers; 1 a
migration failed. Either way a failed run changes nothing.`,
});
const config = loadConfigOrExit();
const { db } = await openDatabase(config).catch((error: unknown) => exitOnStartupFailure(error, 'npm run migrate'));
try {
  const applied = await migrate(db, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(applied.length === 0 ? 'schema is current\n' : `applied ${applied.length} migration(s)\n`);
} catch (error) {
  // Umzug wraps a migration's failure; what the server or the connection said is its cause.
  const cause = (error as { cause?: unknown }).cause ?? error;
  if (config.databaseUrl && isDatabaseUnavailable(cause)) {
    // The session cut or refused (a restart, a network cut) is the database failing, not a migration.
    process.stderr.write(`error: cannot migrate: DATABASE_URL (${printable(config.databaseUrl)}): the database stopped answering (${describeFailure(cause)}); nothing was changed (the migrations run in one transaction): run npm run migrate again once it answers\n`);
    process.exitCode = ExitCode.unavailable;
  } else {
    process.stderr.write(`error: migration failed, nothing was changed (they run in one transaction): ${(error as Error).message}\n`);
    process.exitCode = ExitCode.failure;
  }
} finally {
  // A pool whose session was cut may fail to close too; the line above already said what happened.
  await db.close().catch(() => {});
}
