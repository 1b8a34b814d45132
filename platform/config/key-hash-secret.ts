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
 * (loadConfig enforces it). The embedded default generates a secret once and keeps it in
 * DATA_DIR next to its database: stored key hashes are only usable with the same secret, so it
 * must survive restarts exactly as long as the data does.
 */
export async function withKeyHashSecret(config: Config): Promise<Config> {
  if (config.keyHashSecret) return config;
  if (!config.embedded.database) throw new Error('KEY_HASH_SECRET is required when DATABASE_URL is set');
  const path = join(config.dataDir, KEY_HASH_SECRET_FILE);
  try {
    makeFolder(config.dataDir, 0o700);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new SettingError('DATA_DIR', `is a folder that cannot be made (${code ?? message}: ${config.dataDir}); choose one this user can create`);
  }
  try {
    // 'wx' fails when the file exists, so two processes starting together keep one secret.
    await writeFile(path, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = (await readFile(path, 'utf8')).trim();
  if (secret.length < 32) throw new Error(`${path} holds no usable secret (32 characters or more); restore it or remove it with the data`);
  return { ...config, keyHashSecret: secret };
}

/** The secret of a runtime whose config went through withKeyHashSecret. */
export function keyHashSecretOf(config: Config): string {
  if (!config.keyHashSecret) throw new Error('KEY_HASH_SECRET is not configured');
  return config.keyHashSecret;
}
