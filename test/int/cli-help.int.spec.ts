import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownLines, runCli } from '../support/cli.js';

/** Every `npm run` script that starts a program of the project: its entry file and the arguments the script gives it (package.json). */
const scripts = Object.entries((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts).flatMap(([name, line]) => {
  const found = /(?:^|\s)(?:tsx|--import tsx) ([\w/.-]+\.ts)((?: [\w:-]+)*)$/.exec(line);
  return found ? [{ name, entry: found[1]!, args: found[2]!.trim().split(' ').filter((arg) => arg !== '') }] : [];
});

/** Those whose arguments go through platform/cli/small-cli.ts. */
const STRICT = ['start', 'projector', 'bench', 'geo:load', 'geo:coverage', 'geo:export-legacy', 'migrate'];

/** Every command but the two that start or stop the stack, which a regression here must not do. */
const REFUSING = scripts.map((script) => script.name).filter((name) => name !== 'stack:up' && name !== 'stack:down');

describe('every command answers --help', () => {
  const folder = mkdtempSync(join(tmpdir(), 'cli-help-'));
  const dataDir = join(folder, 'data');
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('finds the commands in package.json', () => {
    expect(scripts.map((script) => script.name)).toEqual(expect.arrayContaining([...STRICT, 'admin', 'replay', 'export', 'ledger:verify', 'seed']));
  });

  it.each(scripts)('npm run $name -- --help prints its usage and exits 0, opening nothing', async ({ entry, args }) => {
    // STACK_DIR too: stack:up must not start (or fetch) anything.
    const result = await runCli(entry, [...args, '--help'], { DATA_DIR: dataDir, STACK_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/usage/i);
    // Help comes before any backend: the embedded database was not created (nor a lock taken).
    expect(existsSync(dataDir)).toBe(false);
  });

  it.each(REFUSING)('npm run %s refuses an unknown flag with exit 2 in one line naming it (and one pointing to --help), doing nothing', async (name) => {
    const { entry, args } = scripts.find((script) => script.name === name)!;
    const result = await runCli(entry, [...args, '--no-such-flag'], { DATA_DIR: dataDir, STACK_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(result.status, result.stderr).toBe(2);
    const [line, ...rest] = ownLines(result.stderr);
    expect(line).toMatch(/^(error:|\[stack\]) unknown (option|argument) ['"]--no-such-flag['"]/);
    // Not the whole usage under the error: at most where to find it.
    expect(rest.length, result.stderr).toBeLessThanOrEqual(1);
    for (const pointer of rest) expect(pointer).toMatch(/^\((npm|tsx) .* --help /);
    expect(result.stdout).toBe('');
    expect(existsSync(dataDir)).toBe(false);
  });
});
