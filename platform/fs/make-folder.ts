import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `mkdirSync(path, { recursive: true, mode })` without its loop: Node's recursive mkdir spins for
 * good on a folder it can never make whose parent exists (one under /proc). Each missing level is
 * made in turn, from the nearest one that exists; one that cannot be made throws its own error
 * (ENOENT, EACCES, ENOTDIR, EEXIST for a file …) naming it.
 */
export function makeFolder(path: string, mode?: number): void {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    const existing = statSync(at, { throwIfNoEntry: false });
    // A file where a folder should be: mkdir's own error, as mkdir -p gives (EEXIST for the path, ENOTDIR below it).
    if (existing && !existing.isDirectory()) mkdirSync(missing[0] ?? at);
    if (existing) break;
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder, { mode });
    } catch (error) {
      // Made meanwhile by another process: as good.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
