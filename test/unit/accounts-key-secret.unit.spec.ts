import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { KEY_HASH_SECRET_FILE, keyHashSecretOf, withKeyHashSecret } from '../../platform/config/key-hash-secret.js';

describe('KEY_HASH_SECRET', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'key-secret-'));
    dirs.push(dir);
    return join(dir, 'data');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('is taken from the environment when set', async () => {
    const config = await withKeyHashSecret(loadConfig({ DATA_DIR: dataDir(), KEY_HASH_SECRET: 'e'.repeat(40) }));
    expect(keyHashSecretOf(config)).toBe('e'.repeat(40));
  });

  it('the embedded default generates one once, keeps it in DATA_DIR (owner-only) and reuses it', async () => {
    const dir = dataDir();
    const first = await withKeyHashSecret(loadConfig({ DATA_DIR: dir }));
    const second = await withKeyHashSecret(loadConfig({ DATA_DIR: dir }));
    expect(keyHashSecretOf(first)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyHashSecretOf(second)).toBe(keyHashSecretOf(first));
    expect(readFileSync(join(dir, KEY_HASH_SECRET_FILE), 'utf8').trim()).toBe(keyHashSecretOf(first));
    expect(statSync(join(dir, KEY_HASH_SECRET_FILE)).mode & 0o077).toBe(0);
  });

  it('two processes starting together end up with one secret', async () => {
    const dir = dataDir();
    const configs = await Promise.all(Array.from({ length: 5 }, () => withKeyHashSecret(loadConfig({ DATA_DIR: dir }))));
    expect(new Set(configs.map(keyHashSecretOf)).size).toBe(1);
  });

  it('refuses a damaged secret file rather than silently replacing it', async () => {
    const dir = dataDir();
    await withKeyHashSecret(loadConfig({ DATA_DIR: dir }));
    writeFileSync(join(dir, KEY_HASH_SECRET_FILE), 'short\n');
    await expect(withKeyHashSecret(loadConfig({ DATA_DIR: dir }))).rejects.toThrow(/no usable secret/);
  });

  it('is required with DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://localhost/x' })).toThrow(/KEY_HASH_SECRET/);
  });
});
