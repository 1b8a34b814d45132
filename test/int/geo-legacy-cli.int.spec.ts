import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownLines, runCli } from '../support/cli.js';

/** geo:coverage and geo:export-legacy without a release file read the loaded release; without one, they refuse. */
const folder = mkdtempSync(join(tmpdir(), 'geo-legacy-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const COMMANDS = [['geo:coverage', 'reference/locations/legacy/coverage-cli.ts'], ['geo:export-legacy', 'reference/locations/legacy/export-cli.ts']] as const;

describe.each(COMMANDS)('npm run %s with no file', (name, entry) => {
  it('exits 2 in one line, creating no database, when DATA_DIR holds none', async () => {
    const dataDir = join(folder, `${name}-none`);
    const result = await runCli(entry, [], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(new RegExp(`^error: no embedded database in DATA_DIR .*; ${name} creates none$`))]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('exits 2 in one line when the database holds no release', async () => {
    const dataDir = join(folder, `${name}-empty`);
    expect((await runCli('platform/db/migrate-cli.ts', [], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' })).status).toBe(0);
    const result = await runCli(entry, [], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(/^error: no release file given .* load one with npm run geo:load -- <file>$/)]);
    expect(result.stdout).toBe('');
  });
});
