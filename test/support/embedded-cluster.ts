import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { Db } from '../../platform/db/db.js';
import { openPglite } from '../../platform/db/pglite.js';
import { embeddedDatabaseDir, holdsEmbeddedDatabase } from '../../platform/runtime.js';

// The tests' copies of the run's empty embedded cluster: see cluster-template.ts for why.

/** Puts an empty cluster in `folder` (the engine's own data folder) and returns `folder`. */
export function emptyCluster(folder: string): string {
  cpSync(inject('embeddedCluster'), folder, { recursive: true });
  return folder;
}

/** Gives DATA_DIR `dataDir` (made if need be) an empty embedded database, unless it holds one; returns `dataDir`. */
export function withEmbeddedCluster(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (!holdsEmbeddedDatabase(dataDir)) emptyCluster(embeddedDatabaseDir(dataDir));
  return dataDir;
}

/** A new DATA_DIR folder under the system's temporary folder, holding an empty embedded database. */
export const dataDirWithCluster = (prefix: string) => withEmbeddedCluster(mkdtempSync(join(tmpdir(), prefix)));

/**
 * The embedded engine on a copy of the empty cluster in a temporary folder, removed once closed:
 * what `memory://` gives a test, without its initdb.
 */
export async function openScratchPglite(): Promise<Db> {
  const folder = mkdtempSync(join(tmpdir(), 'offer-ledger-scratch-pg-'));
  const db = await openPglite(emptyCluster(embeddedDatabaseDir(folder)));
  return {
    ...db,
    async close() {
      try {
        await db.close();
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}
