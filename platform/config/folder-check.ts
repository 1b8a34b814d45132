import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { SettingError } from './settings.js';

/**
 * Checks, reading only, that a folder setting (DATA_DIR, GEO_INDEX_CACHE_DIR) names a folder this
 * user can write, or can be made one (its nearest existing ancestor is a writable folder). Throws
 * SettingError naming the setting: a file there, a read-only disk or another user's folder would
 * otherwise fail deep in a start-up step, or quietly.
 */
export function checkWritableFolder(setting: string, folder: string): void {
  const wanted = resolve(folder);
  let existing = wanted;
  for (;;) {
    const found = kindOf(existing);
    if (found === 'folder') break;
    if (found === 'other') {
      const what = existing === wanted ? `"${folder}" is a file, not a folder` : `"${existing}" on the way to "${folder}" is a file, not a folder`;
      throw new SettingError(setting, `names no usable folder: ${what}; set ${setting} to a folder (it is created when missing)`);
    }
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'refused';
    const where = existing === wanted ? `"${folder}"` : `"${existing}" (where "${folder}" would be created)`;
    throw new SettingError(setting, `names a folder this user cannot write: ${where} (${code}); set ${setting} to a folder of this user's on a writable disk`);
  }
}

function kindOf(path: string): 'folder' | 'other' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch {
    // Missing, or a file on the way (ENOTDIR: the walk up finds it), or not searchable (EACCES:
    // the access check of the folder above says so).
    return 'missing';
  }
}
