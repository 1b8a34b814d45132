import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config.js';
import { makeFolder } from '../fs/make-folder.js';
import { SettingError } from './settings.js';

/** File in DATA_DIR that keeps the embedded default's secret across restarts. */
export const KEY_HASH_SECRET_FILE = 'key-hash-secret';

/**
 * Returns the config with KEY_HASH_SECRET filled in. With DATABASE_URL the variable is required
 * (loadConfig enforces it). The embedded default keeps its secret in DATA_DIR next to its
 * database: stored key hashes are only usable with the same secret, so it must survive restarts
 * exactly as long as the data does. The first start writes KEY_HASH_SECRET there, or a generated
 * one; later starts read it, and refuse a KEY_HASH_SECRET that differs from it (every key issued
 * would silently stop working) and a file they cannot use, as settings to fix (exit 2).
 */
export async function withKeyHashSecret(config: Config): Promise<Config> {
  if (!config.embedded.database) {
    if (config.keyHashSecret) return config;
    throw new SettingError('KEY_HASH_SECRET', 'is required when DATABASE_URL is set (32 characters or more)');
  }
  const path = join(config.dataDir, KEY_HASH_SECRET_FILE);
  const unusable = (what: string) =>
    new SettingError('DATA_DIR', `holds ${KEY_HASH_SECRET_FILE} ${what}: the API keys issued with this data are checked with it; restore it from a backup of ${config.dataDir}, or remove it together with the data`);
  try {
    makeFolder(config.dataDir, 0o700);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new SettingError('DATA_DIR', `is a folder that cannot be made (${code ?? message}: ${config.dataDir}); choose one this user can create`);
  }
  try {
    // 'wx' fails when the file exists, so two processes starting together keep one secret.
    await writeFile(path, `${config.keyHashSecret ?? randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code !== 'EEXIST') throw new SettingError('DATA_DIR', `cannot keep ${KEY_HASH_SECRET_FILE} (${code ?? message}: ${path}); choose a folder this user can write`);
  }
  let stored: string;
  try {
    stored = (await readFile(path, 'utf8')).trim();
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw unusable(`that cannot be read (${code ?? message})`);
  }
  if (stored.length < 32) throw unusable('with no usable secret (32 characters or more)');
  if (config.keyHashSecret !== undefined && config.keyHashSecret !== stored) {
    throw new SettingError('KEY_HASH_SECRET', `differs from the secret DATA_DIR keeps in ${KEY_HASH_SECRET_FILE}, which the API keys issued with this data were hashed with; unset KEY_HASH_SECRET to use it`);
  }
  return { ...config, keyHashSecret: stored };
}

/** The secret of a runtime whose config went through withKeyHashSecret. */
export function keyHashSecretOf(config: Config): string {
  if (!config.keyHashSecret) throw new Error('KEY_HASH_SECRET is not configured');
  return config.keyHashSecret;
}
