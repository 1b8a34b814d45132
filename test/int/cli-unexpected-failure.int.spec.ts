import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { npmScripts, ownLines, runCli, runNode } from '../support/cli.js';

/** The service's processes (their failures are JSON log lines) and the tools that are not commands of the service. */
const NOT_COMMANDS = ['start', 'projector', 'bench', 'test', 'typecheck'];
const commands = npmScripts().filter((script) => !NOT_COMMANDS.includes(script.name));

/** A program that fails as no command foresees: a rejection nothing awaits, of an error of the code itself. */
const FAILING_PROGRAM = `
const { reportUnexpectedFailures } = await import(${JSON.stringify(resolve('platform/cli/unexpected-failure.ts'))});
reportUnexpectedFailures();
void Promise.reject(new TypeError('reading.rows is not a function'));
`;

/**
 * A failure that escapes a command's own handling ends it with one `error: ` line and exit 1, as
 * its other failures do, instead of Node's stack trace (LOG_LEVEL=debug adds the trace); a file
 * it cannot write or read says which and what to check, not that it is a bug.
 */
describe('a failure no command classifies', () => {
  const folder = mkdtempSync(join(tmpdir(), 'cli-unexpected-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('every command of package.json reports one when it runs as the program', () => {
    expect(commands.map((script) => script.name)).toEqual(expect.arrayContaining(['admin', 'replay', 'export', 'migrate', 'geo:load', 'geo:export-legacy']));
    for (const { entry } of commands) expect(readFileSync(entry, 'utf8'), entry).toMatch(/^\s*reportUnexpectedFailures\(\);$/m);
  });

  it('is one line naming the command and what failed, with the advice to rerun with LOG_LEVEL=debug, and exit 1', async () => {
    const result = await runNode(['--import', 'tsx', '--input-type=module', '-e', FAILING_PROGRAM], { env: { PATH: process.env.PATH, npm_lifecycle_event: 'geo:load' } });
    expect(result.status).toBe(1);
    expect(ownLines(result.stderr)).toEqual([
      'error: npm run geo:load failed unexpectedly: reading.rows is not a function; run it again with LOG_LEVEL=debug to see where, and report it with that',
    ]);
  });

  it('with LOG_LEVEL=debug, the stack trace follows that line', async () => {
    const result = await runNode(['--import', 'tsx', '--input-type=module', '-e', FAILING_PROGRAM], { env: { PATH: process.env.PATH, npm_lifecycle_event: 'geo:load', LOG_LEVEL: 'debug' } });
    expect(result.status).toBe(1);
    const [first, second, ...rest] = ownLines(result.stderr);
    expect(first).toBe('error: npm run geo:load failed unexpectedly: reading.rows is not a function');
    expect(second).toBe('TypeError: reading.rows is not a function');
    expect(rest[0]).toMatch(/^\s+at /);
  });

  it('an output file that cannot be written: one line naming it and what to check (geo:export-legacy --out naming a folder)', async () => {
    const catalog = join(process.env.SHARED_DIR ?? '../shared', 'data', 'geo', 'geotargets-2025-07-15-excerpt.csv');
    const result = await runCli('reference/locations/legacy/export-cli.ts', [catalog, '--out', folder], { npm_lifecycle_event: 'geo:export-legacy' });
    expect(result.status, result.stderr).toBe(1);
    // After its progress line ("read N rows from …"), one line and no trace.
    expect(ownLines(result.stderr).slice(1)).toEqual([`error: npm run geo:export-legacy: cannot open ${folder}: it is a folder; check the path and its permissions, or choose another`]);
  });
});
