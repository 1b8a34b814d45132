import { PGlite } from '@electric-sql/pglite';

/**
 * A new embedded database starts with the engine's initdb: five to ten seconds of CPU, which
 * the service pays once per DATA_DIR, and the tests paid for each of their dozens of folders.
 * The run makes one empty cluster with the same engine (global setup) and the tests copy it into
 * their folders (embedded-cluster.ts): the service opens it as it would a folder of its own and
 * migrates it itself. Tests of how a folder is created start from an empty one instead.
 */
export async function createClusterTemplate(folder: string): Promise<string> {
  const cluster = await PGlite.create(folder);
  await cluster.close();
  return folder;
}
