import { fromCallerFolder } from '../../../platform/cli/caller-folder.js';
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
const config = loadConfigOrExit();
// The argument from the folder the command was run in (npm run starts in the project's).
const file = process.argv[2] === undefined ? config.geoCatalogFile : fromCallerFolder(process.argv[2]);
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
