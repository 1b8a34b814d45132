import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

/** `npm run ledger:verify`'s flags and refusals, before any database is opened. */
const parent = mkdtempSync(join(tmpdir(), 'offer-ledger-verify-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));
const dataDir = join(parent, 'never-created');

const verify = (args: string[], dir = dataDir) => runCli('projections/ledger/verify-cli.ts', args, { DATA_DIR: dir }, 60_000);

describe('ledger:verify command line', () => {
  it('--help prints what it checks and its exit codes, exit 0', async () => {
    const result = await verify(['--help']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Usage: ledger:verify/);
    expect(result.stdout).toMatch(/Exit codes: 0 verifies, 1 does not/);
  });

  it('refuses an unknown flag or argument with exit 2', async () => {
    expect((await verify(['--bogus'])).status).toBe(2);
    expect((await verify(['extra'])).status).toBe(2);
  });

  it('exits 2 on a DATA_DIR that does not exist, without creating one', async () => {
    const result = await verify([]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/no embedded database in DATA_DIR .*never-created: nothing to verify/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('exits 2 on a DATA_DIR that exists but holds no database, and leaves it empty', async () => {
    const empty = join(parent, 'empty');
    mkdirSync(empty);
    const result = await verify([], empty);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/no embedded database in DATA_DIR .*empty: nothing to verify/);
    expect(readdirSync(empty)).toEqual([]);
  });
});

/** The other tools that only read what is there refuse the same way, rather than report an empty database they created. */
describe('export and replay on a DATA_DIR without a database', () => {
  const tool = (script: string, args: string[]) => runCli(script, args, { DATA_DIR: dataDir }, 60_000);

  it.each([
    ['services/export/cli.ts', ['--topic', 'accounts', '--out', join(parent, 'accounts.ndjson')], 'export', 'nothing to export'],
    ['services/replay/cli.ts', [], 'replay', 'no read models to compare a replay with'],
    ['services/replay/cli.ts', ['--kept'], 'replay', 'no replay schemas to list or drop'],
  ])('%s %j exits 2 without creating one', async (script, args, name, nothing) => {
    const result = await tool(script, args);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(`no embedded database in DATA_DIR ${dataDir}: ${nothing} (set DATA_DIR to the service's folder, or DATABASE_URL); ${name} creates none`);
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync(join(parent, 'accounts.ndjson'))).toBe(false);
  });
});
