import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { entryArgs } from '../support/child-process.js';

/** `npm run ledger:verify`'s flags and refusals, before any database is opened. */
const parent = mkdtempSync(join(tmpdir(), 'offer-ledger-verify-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));
const dataDir = join(parent, 'never-created');

const verify = (args: string[], dir = dataDir) =>
  spawnSync(process.execPath, [...entryArgs('projections/ledger/verify-cli.ts'), ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dir },
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('ledger:verify command line', () => {
  it('--help prints what it checks and its exit codes, exit 0', () => {
    const result = verify(['--help']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Usage: ledger:verify/);
    expect(result.stdout).toMatch(/Exit codes: 0 verifies, 1 does not/);
  });

  it('refuses an unknown flag or argument with exit 2', () => {
    expect(verify(['--bogus']).status).toBe(2);
    expect(verify(['extra']).status).toBe(2);
  });

  it('exits 2 on a DATA_DIR that does not exist, without creating one', () => {
    const result = verify([]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/no embedded database in DATA_DIR .*never-created: nothing to verify/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('exits 2 on a DATA_DIR that exists but holds no database, and leaves it empty', () => {
    const empty = join(parent, 'empty');
    mkdirSync(empty);
    const result = verify([], empty);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/no embedded database in DATA_DIR .*empty: nothing to verify/);
    expect(readdirSync(empty)).toEqual([]);
  });
});

/** The other tools that only read what is there refuse the same way, rather than report an empty database they created. */
describe('export and replay on a DATA_DIR without a database', () => {
  const tool = (script: string, args: string[]) =>
    spawnSync(process.execPath, [...entryArgs(script), ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 60_000,
    });

  it.each([
    ['services/export/cli.ts', ['--topic', 'accounts', '--out', join(parent, 'accounts.ndjson')], 'export', 'nothing to export'],
    ['services/replay/cli.ts', [], 'replay', 'no read models to compare a replay with'],
    ['services/replay/cli.ts', ['--kept'], 'replay', 'no replay schemas to list or drop'],
  ])('%s %j exits 2 without creating one', (script, args, name, nothing) => {
    const result = tool(script, args);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(`no embedded database in DATA_DIR ${dataDir}: ${nothing} (set DATA_DIR to the service's folder, or DATABASE_URL); ${name} creates none`);
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync(join(parent, 'accounts.ndjson'))).toBe(false);
  });
});
