import { smallCliArgs } from '../cli/small-cli.js';
import { loadConfigOrExit } from '../config/config.js';
import { openDatabase } from '../runtime.js';
import { exitOnStartupFailure } from '../startup.js';
import { migrate } from './migrate.js';

/** `npm run migrate`: applies pending migrations to the configured database (start-up does the same). */
smallCliArgs({
  usage: `usage: npm run migrate
Applies the pending migrations to the configured database (DATABASE_URL, else the embedded one in
DATA_DIR), in one transaction. Every process does the same at start-up.`,
});
const config = loadConfigOrExit();
const { db } = await openDatabase(config).catch((error: unknown) => exitOnStartupFailure(error, 'npm run migrate'));
try {
  const applied = await migrate(db, (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(applied.length === 0 ? 'schema is current\n' : `applied ${applied.length} migration(s)\n`);
} catch (error) {
  process.stderr.write(`error: migration failed, nothing was changed (they run in one transaction): ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await db.close();
}
