import { loadConfigOrExit } from '../../../platform/config/config.js';
import { migrate } from '../../../platform/db/migrate.js';
import { openDatabase } from '../../../platform/runtime.js';
import { exitOnStartupFailure } from '../../../platform/startup.js';
import { readSourceRows, sourceFileDateOf } from '../full/source-file.js';
import { readCurrentRelease } from './build.js';
import type { SourceRow } from './source-row.js';

/**
 * Where the commands read source rows: a release file (argument or GEO_CATALOG_FILE) when one is
 * given, else the current FULL release of the configured database.
 */
export async function commandSourceRows(file: string | undefined, log: (line: string) => void): Promise<{ sourceFileDate: string; rows: SourceRow[] }> {
  const config = loadConfigOrExit();
  const path = file ?? config.geoCatalogFile;
  if (path !== undefined) {
    const rows: SourceRow[] = [];
    for await (const row of readSourceRows(path)) rows.push(row);
    log(`read ${rows.length} rows from ${path}`);
    return { sourceFileDate: sourceFileDateOf(path), rows };
  }
  const { db } = await openDatabase(config).catch((error: unknown) => exitOnStartupFailure(error, 'this command'));
  try {
    await migrate(db);
    const release = await readCurrentRelease(db);
    if (!release) throw new Error('no release file given (argument or GEO_CATALOG_FILE) and no FULL release loaded in the database');
    log(`read ${release.rows.length} rows of the loaded ${release.sourceFileDate} release`);
    return release;
  } finally {
    await db.close();
  }
}
