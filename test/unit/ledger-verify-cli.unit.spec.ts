import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** `npm run ledger:verify`'s flags and refusals, before any database is opened. */
const parent = mkdtempSync(join(tmpdir(), 'offer-ledger-verify-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));
const dataDir = join(parent, 'never-created');

const verify = (args: string[], dir = dataDir) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'projections/ledger/verify-cli.ts', ...args], {
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
