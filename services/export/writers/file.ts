import { once } from 'node:events';
import { closeSync, createWriteStream, openSync, readFileSync, rmSync, writeSync, type WriteStream } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import type { SchemaDocument } from '../schema-document.js';

/** Where a file is written until it is complete: a failed export never leaves a file that looks whole. */
export const partialPath = (path: string) => `${path}.partial`;

/** Where a Parquet export lets DuckDB spill the rows it holds until the file is written. */
export const spillPath = (path: string) => `${partialPath(path)}.spill`;

/** Held by the export writing `path` while it runs: two exports to one file wrote into the same partial file. */
export const lockPath = (path: string) => `${partialPath(path)}.lock`;

/**
 * Takes the lock of `path` for this export (it holds this process's id), or throws the file
 * system's error (EEXIST: another export holds it). A lock whose process has ended (killed before
 * it could let go) is taken over.
 */
export function claimOut(path: string): void {
  const lock = lockPath(path);
  try {
    writeLock(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || isHeld(lock)) throw error;
    rmSync(lock, { force: true });
    // Another export taking it over at the same moment makes this EEXIST: refused like any holder.
    writeLock(lock);
  }
}

function writeLock(lock: string): void {
  const descriptor = openSync(lock, 'wx');
  try {
    writeSync(descriptor, `${process.pid}\n`);
  } finally {
    closeSync(descriptor);
  }
}

/** Whether the process a lock names is alive; a lock without a process id (being written) counts as held. */
function isHeld(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(lock, 'utf8').trim());
  } catch {
    // Let go of meanwhile: the retry takes it, or meets the next holder.
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Lets go of the lock of `path`. */
export const releaseOut = (path: string) => rm(lockPath(path), { force: true });

/** Removes what an export to `path` that did not finish may have left (after a kill, say). */
export function removeUnfinished(path: string): void {
  rmSync(partialPath(path), { force: true });
  rmSync(partialPath(sidecarPath(path)), { force: true });
  rmSync(spillPath(path), { recursive: true, force: true });
  rmSync(lockPath(path), { force: true });
}

/** The schema document written beside a CSV or ndjson file. */
const sidecarPath = (path: string) => `${path}.schema.json`;

/** A text file written chunk by chunk (waiting when the disk is slower), moved into place when finished. */
export interface TextFile {
  /** Text, or bytes of UTF-8 text the caller gives up (they are written as they are, later). */
  write(text: string | Buffer): Promise<void>;
  finish(document: SchemaDocument, signal?: AbortSignal): Promise<string[]>;
  abort(): Promise<void>;
}

export function textFile(path: string): TextFile {
  // A large buffer lets the disk write one batch while the next is being read and encoded.
  const stream: WriteStream = createWriteStream(partialPath(path), { highWaterMark: 16 * 1024 * 1024 });
  let failure: Error | undefined;
  stream.on('error', (error) => (failure ??= error));
  const closed = () => new Promise<void>((resolve) => (stream.closed ? resolve() : stream.end(resolve)));
  return {
    async write(text) {
      if (failure) throw failure;
      // once() rejects when the stream fails while waiting.
      if (!stream.write(text)) await once(stream, 'drain');
    },
    async finish(document, signal) {
      await closed();
      if (failure) throw failure;
      // Written beside the data first: a write that fails (a full disk) leaves an earlier export's
      // document as it was, instead of cut short next to that export's data.
      try {
        await writeFile(partialPath(sidecarPath(path)), `${JSON.stringify(document, null, 2)}\n`);
      } catch (error) {
        await rm(partialPath(sidecarPath(path)), { force: true }).catch(() => {});
        throw error;
      }
      // Checked in the same step as the move starts: an abort after it cannot undo the move.
      signal?.throwIfAborted();
      await rename(partialPath(path), path);
      await rename(partialPath(sidecarPath(path)), sidecarPath(path));
      return [path, sidecarPath(path)];
    },
    async abort() {
      await closed();
      await rm(partialPath(path), { force: true });
      await rm(partialPath(sidecarPath(path)), { force: true }).catch(() => {});
    },
  };
}
