import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { KEY_HASH_SECRET_FILE, keyHashSecretOf, withKeyHashSecret } from '../../platform/config/key-hash-secret.js';
import { SettingError } from '../../platform/config/settings.js';

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

  it('is taken from the environment when set, and kept in DATA_DIR for the starts without it', async () => {
    const dir = dataDir();
    const config = await withKeyHashSecret(loadConfig({ DATA_DIR: dir, KEY_HASH_SECRET: 'e'.repeat(40) }));
    expect(keyHashSecretOf(config)).toBe('e'.repeat(40));
    expect(keyHashSecretOf(await withKeyHashSecret(loadConfig({ DATA_DIR: dir })))).toBe('e'.repeat(40));
    expect(keyHashSecretOf(await withKeyHashSecret(loadConfig({ DATA_DIR: dir, KEY_HASH_SECRET: 'e'.repeat(40) })))).toBe('e'.repeat(40));
  });

  // Every key issued with the data would answer 401 with no word of why.
  it('refuses a KEY_HASH_SECRET that differs from the one DATA_DIR keeps, as a setting', async () => {
    const dir = dataDir();
    await withKeyHashSecret(loadConfig({ DATA_DIR: dir }));
    const refused = await withKeyHashSecret(loadConfig({ DATA_DIR: dir, KEY_HASH_SECRET: 'z'.repeat(36) })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SettingError);
    expect(refused).toMatchObject({ variable: 'KEY_HASH_SECRET', message: expect.stringMatching(/^KEY_HASH_SECRET differs from the secret DATA_DIR keeps in key-hash-secret, .*unset KEY_HASH_SECRET to use it$/) });
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
    const damaged = await withKeyHashSecret(loadConfig({ DATA_DIR: dir })).catch((error: unknown) => error);
    expect(damaged).toBeInstanceOf(SettingError);
    expect(damaged).toMatchObject({ variable: 'DATA_DIR', message: expect.stringContaining('holds key-hash-secret with no usable secret (32 characters or more)') });
  });

  it('refuses a secret file it cannot read as a setting, not a stack trace', async () => {
    const dir = dataDir();
    mkdirSync(join(dir, KEY_HASH_SECRET_FILE), { recursive: true });
    const refused = await withKeyHashSecret(loadConfig({ DATA_DIR: dir })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SettingError);
    expect(refused).toMatchObject({ variable: 'DATA_DIR', message: expect.stringContaining('holds key-hash-secret that cannot be read (EISDIR)') });
  });

  it('is required with DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://localhost/x' })).toThrow(/KEY_HASH_SECRET/);
  });
});
