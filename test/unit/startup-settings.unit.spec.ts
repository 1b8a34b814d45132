import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { SettingError } from '../../platform/config/settings.js';
import { checkListenable } from '../../platform/http/listen.js';
import { BackendUnavailableError, describeFailure } from '../../platform/startup.js';

const scratch = mkdtempSync(join(tmpdir(), 'startup-settings-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const settingError = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SettingError);
    return error as SettingError;
  }
  throw new Error('no SettingError');
};

describe('DATA_DIR, checked before anything opens it (embedded default)', () => {
  it('takes a folder, or a missing one whose nearest existing ancestor is a folder', () => {
    expect(loadConfig({ DATA_DIR: scratch }).dataDir).toBe(scratch);
    expect(loadConfig({ DATA_DIR: join(scratch, 'new', 'deeper') }).dataDir).toBe(join(scratch, 'new', 'deeper'));
  });

  it('refuses a file, or a file on the way to it, naming DATA_DIR and that file', () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'x');
    expect(settingError(() => loadConfig({ DATA_DIR: file }))).toMatchObject({ variable: 'DATA_DIR', message: expect.stringContaining(`"${file}" is a file, not a folder`) });
    expect(settingError(() => loadConfig({ DATA_DIR: join(file, 'sub') }))).toMatchObject({
      variable: 'DATA_DIR',
      message: expect.stringContaining(`"${file}" on the way to "${join(file, 'sub')}" is a file`),
    });
  });

  it('GEO_INDEX_CACHE_DIR is checked the same way, unless off', () => {
    const file = join(scratch, 'cache-file');
    writeFileSync(file, 'x');
    expect(settingError(() => loadConfig({ DATA_DIR: scratch, GEO_INDEX_CACHE_DIR: file }))).toMatchObject({ variable: 'GEO_INDEX_CACHE_DIR' });
    expect(loadConfig({ DATA_DIR: scratch, GEO_INDEX_CACHE_DIR: 'off' }).geoIndexCacheDir).toBe('off');
  });

  it('is not checked when DATABASE_URL names the database', () => {
    const file = join(scratch, 'ignored-file');
    writeFileSync(file, 'x');
    expect(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x', KEY_HASH_SECRET: 'k'.repeat(32), DATA_DIR: file }).dataDir).toBe(file);
  });
});

describe('PROJECTORS=separate', () => {
  it('needs DATABASE_URL: on the embedded default no other process may open DATA_DIR to project', () => {
    expect(settingError(() => loadConfig({ PROJECTORS: 'separate' }))).toMatchObject({ variable: 'PROJECTORS' });
    expect(loadConfig({ PROJECTORS: 'separate', DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x', KEY_HASH_SECRET: 'k'.repeat(32) }).projectors).toBe('separate');
  });
});

describe('checkListenable: the API\'s address, tried before the slow start-up steps', () => {
  const hint = 'choose another port';

  it('binds and lets go of a free address', async () => {
    await expect(checkListenable({ host: '127.0.0.1', port: 0 }, 'PORT', hint)).resolves.toBeUndefined();
  });

  it('says a port another process holds as a backend refusal naming PORT', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const refusal = checkListenable({ host: '127.0.0.1', port }, 'PORT', hint);
      await expect(refusal).rejects.toBeInstanceOf(BackendUnavailableError);
      await expect(refusal).rejects.toThrow(`PORT: ${port} on 127.0.0.1 is taken by another process; ${hint}`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('says a HOST that is not this machine\'s, or does not resolve, as configuration naming HOST', async () => {
    // 192.0.2.0/24 is documentation space (RFC 5737): never an address of this machine.
    const foreign = checkListenable({ host: '192.0.2.1', port: 0 }, 'PORT', hint);
    await expect(foreign).rejects.toBeInstanceOf(SettingError);
    await expect(foreign).rejects.toMatchObject({ variable: 'HOST', message: expect.stringContaining('EADDRNOTAVAIL') });
    // .invalid never resolves (RFC 2606).
    await expect(checkListenable({ host: 'no-such-host.invalid', port: 0 }, 'PORT', hint)).rejects.toMatchObject({ variable: 'HOST', message: expect.stringContaining('does not resolve') });
  });
});

describe('a failure as a start-up line says it', () => {
  it('names the cause after the failure, once: a cause in the same words is not repeated', () => {
    expect(describeFailure(new Error('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }))).toBe('fetch failed: connect ECONNREFUSED 127.0.0.1:1');
    expect(describeFailure(new Error('Closed connection', { cause: new Error('Closed connection') }))).toBe('Closed connection');
    expect(describeFailure(new Error('broker: Closed connection', { cause: new Error('Closed connection') }))).toBe('broker: Closed connection');
  });
});
