import { createHash } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../../platform/db/db.js';
import { readSnapshot, writeSnapshot } from './snapshot-file.js';
import { makeFolder } from '../../platform/fs/make-folder.js';

/**
 * Built location indexes kept on disk, so a restart with the same data loads them in a fraction
 * of the time a build takes (reading the release from the database and indexing it). One file per
 * catalog (`full.snapshot`, `legacy.snapshot`) in a folder of its own; each is keyed by what it
 * was built from (the release's sha256, its load in this database, the LEGACY build) and by
 * SNAPSHOT_FORMAT. A file written for another key, or one that does not check out (see
 * snapshot-file.ts), is never used: the index is built from the database and the file rewritten.
 * Writing happens after the build, in the background; nothing waits for it.
 */

/**
 * Bump whenever what an index holds, or how it is built, changes (the text index's lists, the
 * folding, the row order...): snapshots of the previous format are then stale and rebuilt.
 * test/int/locations-index-snapshot.int.spec.ts fails until it is bumped.
 */
export const SNAPSHOT_FORMAT = 4;

export type SnapshotKind = 'FULL' | 'LEGACY';

export interface IndexSnapshots {
  readonly folder: string;
  /**
   * The index made by `make` from the state stored for (kind, key), or undefined when there is
   * none that fits: missing, stale, corrupt, or refused by `make` (said in the log; never thrown).
   */
  restore<T>(kind: SnapshotKind, key: readonly unknown[], make: (state: unknown) => T | undefined): Promise<T | undefined>;
  /** Stores the state for (kind, key) in the background; failures are logged. */
  save(kind: SnapshotKind, key: readonly unknown[], state: () => unknown): void;
  /** Resolves once every save started so far has finished. */
  settled(): Promise<void>;
}

/** A temporary file this old is what a process stopped while writing left behind. */
const LEFTOVER_MS = 60 * 60 * 1000;

const keyOf = (kind: SnapshotKind, key: readonly unknown[]) =>
  createHash('sha256').update(JSON.stringify([SNAPSHOT_FORMAT, kind, ...key])).digest('hex');

const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(2)} s`;

export function indexSnapshots(folder: string, log: (line: string) => void = () => {}): IndexSnapshots {
  const pathOf = (kind: SnapshotKind) => join(folder, `${kind.toLowerCase()}.snapshot`);
  const writing = new Set<Promise<void>>();
  return {
    folder,
    async restore(kind, key, make) {
      const started = performance.now();
      try {
        const read = await readSnapshot(pathOf(kind), kind, keyOf(kind, key));
        if (read.status === 'missing') return undefined;
        if (read.status !== 'loaded') {
          log(`geo catalog: ${kind} index snapshot is ${read.status} (${read.reason}); building the index`);
          return undefined;
        }
        const made = make(read.value);
        if (made === undefined) log(`geo catalog: ${kind} index snapshot does not fit the stored data; building the index`);
        else log(`geo catalog: ${kind} index loaded from its snapshot (${megabytes(read.bytes)}) in ${seconds(started)}`);
        return made;
      } catch (error) {
        log(`geo catalog: ${kind} index snapshot not usable (${error instanceof Error ? error.message : String(error)}); building the index`);
        return undefined;
      }
    },
    save(kind, key, state) {
      const started = performance.now();
      const done = (async () => {
        makeFolder(folder);
        await removeLeftovers(folder, `${kind.toLowerCase()}.snapshot.`);
        const bytes = await writeSnapshot(pathOf(kind), kind, keyOf(kind, key), state());
        log(`geo catalog: ${kind} index snapshot written (${megabytes(bytes)}) in ${seconds(started)}`);
      })()
        .catch((error: unknown) => log(`geo catalog: ${kind} index snapshot not written (${error instanceof Error ? error.message : String(error)})`))
        .finally(() => writing.delete(done));
      writing.add(done);
    },
    async settled() {
      while (writing.size > 0) await Promise.all(writing);
    },
  };
}

/** Removes old temporary files starting with `prefix` (from writes that never finished). */
async function removeLeftovers(folder: string, prefix: string) {
  for (const name of await readdir(folder)) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const path = join(folder, name);
    const age = Date.now() - (await stat(path).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > LEFTOVER_MS) await rm(path, { force: true });
  }
}

const registered = new WeakMap<Db, IndexSnapshots>();

/** Makes the location indexes of `db` load from and save to `snapshots` (undefined: no snapshots). */
export function useIndexSnapshots(db: Db, snapshots: IndexSnapshots | undefined): void {
  if (snapshots) registered.set(db, snapshots);
  else registered.delete(db);
}

/** The snapshots the location indexes of `db` use, if any. */
export function indexSnapshotsOf(db: Db): IndexSnapshots | undefined {
  return registered.get(db);
}
