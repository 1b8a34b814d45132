import { existsSync } from 'node:fs';
import { onInterrupt } from '../../../platform/cli/on-interrupt.js';
import { fromCallerFolder } from '../../../platform/cli/caller-folder.js';
import { smallCliArgs } from '../../../platform/cli/small-cli.js';
import { loadConfigOrExit } from '../../../platform/config/config.js';
import { migrate } from '../../../platform/db/migrate.js';
import { openDatabase } from '../../../platform/runtime.js';
import { ExitCode, exitOnStartupFailure } from '../../../platform/startup.js';
import { loadFullCatalog } from './loader.js';
import { barProgress, logProgress } from './progress.js';
import { CatalogFileError, missingFileMessage } from './source-file.js';
import { targetingOutsideRelease } from './targeting-gaps.js';
import { reportUnexpectedFailures } from '../../../platform/cli/unexpected-failure.js';

reportUnexpectedFailures();

/**
 * `npm run geo:load -- <file>`: loads a geo-target release (zip or CSV) into the configured database
 * (DATABASE_URL, else the embedded one in DATA_DIR). Without the argument, GEO_CATALOG_FILE.
 */
const { positionals, values } = smallCliArgs({
  positionals: 1,
  options: { 'allow-shrink': { type: 'boolean' } },
  usage: `usage: npm run geo:load [-- <file>] [--allow-shrink]
Loads a geo-target release (zip or CSV) into the FULL catalog of the configured database
(DATABASE_URL, else the embedded one in DATA_DIR). Without <file>, GEO_CATALOG_FILE; with
GEO_CATALOG_SHA256 set, a file (given or configured) of another digest is refused. A release already loaded is left as it is.
A file with no active location, or with under half the current release's, is refused (a file cut
short looks like that); --allow-shrink loads a smaller catalog on purpose. The FULL catalog is
loaded in one transaction: interrupted or failed, it leaves the current catalog as it was, and a
rerun is safe. The LEGACY registry is then rebuilt from it: stopped in that last step, FULL is the
new release and LEGACY still the previous one until a rerun, which only rebuilds LEGACY.
Exit 2: the file is refused (the message names it, and the line of a damaged row); exit 4: the
database failed or went away (rerun once it answers).`,
});
// The argument from the folder the command was run in (npm run starts in the project's). It is
// the file GEO_CATALOG_SHA256 pins, as GEO_CATALOG_FILE would be.
const given = positionals[0] === undefined ? undefined : fromCallerFolder(positionals[0]);
const log = (line: string) => process.stderr.write(`${line}\n`);
/** A line that ends the load unrun or failed: `error: ` first, as every command's. */
const fail = (line: string) => log(`error: ${line}`);
// Said as for a missing GEO_CATALOG_FILE (with where to get a release), not as a setting's error.
if (given !== undefined && !existsSync(given)) {
  fail(missingFileMessage(given));
  process.exit(2);
}
const config = loadConfigOrExit(given === undefined ? process.env : { ...process.env, GEO_CATALOG_FILE: given });
const file = config.geoCatalogFile;
if (file === undefined) {
  fail(missingFileMessage(undefined));
  process.exit(2);
}
const { db } = await openDatabase(config).catch((error: unknown) => exitOnStartupFailure(error, 'npm run geo:load'));
/** Set once the new release is the current FULL catalog: from then on only the LEGACY registry lags. */
let committed = false;
const whereItStands = () =>
  committed
    ? 'the FULL catalog is the new release, but the LEGACY registry is still the previous one: run the same geo:load again (it only rebuilds LEGACY)'
    : 'the load is one transaction: the current catalog is as it was, and a rerun is safe';
onInterrupt(() => `geo:load interrupted; ${whereItStands()}`);
try {
  await migrate(db, log);
  const result = await loadFullCatalog(db, {
    file,
    expectedSha256: config.geoCatalogSha256,
    allowShrink: values['allow-shrink'] === true,
    log,
    progress: process.stderr.isTTY ? barProgress() : logProgress(log),
    onCommitted: () => (committed = true),
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  const outside = await targetingOutsideRelease(db);
  if (outside.length > 0) {
    const named = outside.slice(0, 10).map((row) => `${row.location_id} (${row.offers} offer${row.offers === 1 ? '' : 's'})`).join(', ');
    log(
      `warning: offers target ${outside.length} location(s) this release does not hold: ${named}${outside.length > 10 ? ', …' : ''}; ` +
        "rules naming them match nothing now: update those offers' targeting, or load a release that holds them",
    );
  }
} catch (error) {
  if (error instanceof CatalogFileError) {
    fail(error.message);
    process.exitCode = ExitCode.invalidInput;
  } else {
    // The database went away or refused a write mid-load: say so, not a driver's stack trace.
    fail(`the load stopped: ${(error as Error).message} (${config.embedded.database ? `the embedded database in DATA_DIR ${config.dataDir}` : 'DATABASE_URL'}); ${whereItStands()} once the database answers`);
    process.exitCode = ExitCode.unavailable;
  }
} finally {
  await db.close().catch(() => {});
}
