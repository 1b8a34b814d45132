import { fromCallerFolder } from '../../../platform/cli/caller-folder.js';
import { smallCliArgs } from '../../../platform/cli/small-cli.js';
import { loadConfigOrExit } from '../../../platform/config/config.js';
import { migrate } from '../../../platform/db/migrate.js';
import { openDatabase } from '../../../platform/runtime.js';
import { exitOnStartupFailure } from '../../../platform/startup.js';
import { loadFullCatalog } from './loader.js';
import { barProgress, logProgress } from './progress.js';
import { CatalogFileError, missingFileMessage } from './source-file.js';

/**
 * `npm run geo:load -- <file>`: loads a geo-target release (zip or CSV) into the configured database
 * (DATABASE_URL, else the embedded one in DATA_DIR). Without the argument, GEO_CATALOG_FILE.
 */
const { positionals } = smallCliArgs({
  positionals: 1,
  usage: `usage: npm run geo:load [-- <file>]
Loads a geo-target release (zip or CSV) into the FULL catalog of the configured database
(DATABASE_URL, else the embedded one in DATA_DIR). Without <file>, GEO_CATALOG_FILE; with
GEO_CATALOG_SHA256 set, a file of another digest is refused. A release already loaded is left as it is.`,
});
const config = loadConfigOrExit();
// The argument from the folder the command was run in (npm run starts in the project's).
const file = positionals[0] === undefined ? config.geoCatalogFile : fromCallerFolder(positionals[0]);
const log = (line: string) => process.stderr.write(`${line}\n`);
if (file === undefined) {
  log(missingFileMessage(undefined));
  process.exit(2);
}
const { db } = await openDatabase(config).catch((error: unknown) => exitOnStartupFailure(error, 'npm run geo:load'));
try {
  await migrate(db, log);
  const result = await loadFullCatalog(db, {
    file,
    expectedSha256: config.geoCatalogSha256,
    log,
    progress: process.stderr.isTTY ? barProgress() : logProgress(log),
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  if (!(error instanceof CatalogFileError)) throw error;
  log(error.message);
  process.exitCode = 2;
} finally {
  await db.close();
}
