import { loadConfigOrExit } from '../../../platform/config/config.js';
import { migrate } from '../../../platform/db/migrate.js';
import { exitUnlessThereIsADatabase, openDatabase } from '../../../platform/runtime.js';
import { exitOnStartupFailure } from '../../../platform/startup.js';
import { assertFileExists, CatalogFileError, readSourceRows, sourceFileDateOf } from '../full/source-file.js';
import { readCurrentRelease } from './build.js';
import type { SourceRow } from './source-row.js';

/**
 * Where the commands read source rows: a release file (argument or GEO_CATALOG_FILE) when one is
 * given, else the current FULL release of the configured database. `tool` is the command as the
 * user typed it (`geo:coverage`), for the lines that refuse it.
 */
export async function commandSourceRows(tool: string, file: string | undefined, log: (line: string) => void): Promise<{ sourceFileDate: string; rows: SourceRow[] }> {
  const config = loadConfigOrExit();
  const path = file ?? config.geoCatalogFile;
  if (path !== undefined) {
    const rows: SourceRow[] = [];
    try {
      // A missing file, or a folder given for it, is named with what to give instead (as geo:load does).
      assertFileExists(path);
      for await (const row of readSourceRows(path)) rows.push(row);
      log(`read ${rows.length} rows from ${path}`);
      return { sourceFileDate: sourceFileDateOf(path), rows };
    } catch (error) {
      // A file that is not a release (or cannot be read) is the caller's to fix: one line, exit 2.
      if (error instanceof CatalogFileError || (error as NodeJS.ErrnoException).code !== undefined) exitWith((error as Error).message);
      throw error;
    }
  }
  // Reading a release from an embedded database that does not exist would create an empty one first.
  exitUnlessThereIsADatabase(config, tool, 'no release file given (argument or GEO_CATALOG_FILE) and no release to read');
  const { db } = await openDatabase(config).catch((error: unknown) => exitOnStartupFailure(error, `npm run ${tool}`));
  let release: Awaited<ReturnType<typeof readCurrentRelease>>;
  try {
    await migrate(db);
    release = await readCurrentRelease(db);
  } finally {
    await db.close();
  }
  if (!release) exitWith('no release file given (argument or GEO_CATALOG_FILE) and no FULL release loaded in the database: give a file, or load one with npm run geo:load -- <file>');
  log(`read ${release.rows.length} rows of the loaded ${release.sourceFileDate} release`);
  return release;
}

/** Refuses the command: one failure line (`error: ` first, as every command's), exit 2. */
function exitWith(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}
