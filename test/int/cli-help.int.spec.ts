import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { npmScripts, ownLines, runCli } from '../support/cli.js';

const scripts = npmScripts();

/** Those whose arguments go through platform/cli/small-cli.ts. */
const STRICT = ['start', 'projector', 'bench', 'geo:load', 'geo:coverage', 'geo:export-legacy', 'migrate'];

/**
 * Those that read the service's settings, with arguments that are otherwise valid (so a setting is
 * the one thing wrong); the others read none.
 */
const CONFIGURED: Record<string, (folder: string) => string[]> = {
  start: () => [],
  projector: () => [],
  admin: () => ['developer:register', '--name', 'N', '--email', 'n@example.test'],
  seed: () => ['--offers', '2', '--no-progress'],
  migrate: () => [],
  replay: () => [],
  export: (folder) => ['--topic', 'postbacks', '--out', join(folder, 'out.ndjson')],
  'ledger:verify': () => [],
  'geo:load': () => [],
  'geo:coverage': () => [],
  'geo:export-legacy': () => [],
  // Its server processes inherit the settings.
  bench: () => ['serving'],
};
/**
 * Besides the setting, for a script that would otherwise look for backends of its own should its
 * refusal regress: the benches look for a stack (in Docker when an engine answers, else the local
 * one, started if need be), and a local stack port they cannot use ends that search at once.
 */
const GUARDED: Record<string, Record<string, string>> = { bench: { STACK_KAFKA_PORT: 'none' } };
const WITHOUT_SETTINGS = ['test', 'typecheck', 'geo:download', 'geo:generate', 'schemas:generate', 'schemas:check', 'stack:up', 'stack:down', 'stack:status'];

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
    expect(line).toMatch(/^error: unknown (option|argument) ['"]--no-such-flag['"]/);
    // Not the whole usage under the error: at most where to find it.
    expect(rest.length, result.stderr).toBeLessThanOrEqual(1);
    for (const pointer of rest) expect(pointer).toMatch(/^\((npm|tsx) .* --help /);
    expect(result.stdout).toBe('');
    expect(existsSync(dataDir)).toBe(false);
  });

  // An empty path would resolve to the folder the command runs in, and be refused as a folder.
  it.each([
    ['geo:load', [''], 'error: an argument is empty (""): give the file name, or leave the argument out'],
    ['geo:coverage', [''], 'error: an argument is empty (""): give the file name, or leave the argument out'],
    ['geo:export-legacy', ['--out', ''], 'error: --out: is empty (""); give a value, or leave the flag out'],
  ] as const)('npm run %s with %j refuses the empty value with exit 2, doing nothing', async (name, given, line) => {
    const { entry, args } = scripts.find((script) => script.name === name)!;
    const result = await runCli(entry, [...args, ...given], { DATA_DIR: dataDir, STACK_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)[0]).toBe(line);
    expect(result.stdout).toBe('');
    expect(existsSync(dataDir)).toBe(false);
  });
});

/** One convention for every command's failure line (README, Commands): `error: `, then `configuration: ` and the variable for a setting. */
describe('every command that reads the settings refuses a bad one', () => {
  const folder = mkdtempSync(join(tmpdir(), 'cli-settings-'));
  const dataDir = join(folder, 'data');
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('knows whether each script of package.json reads the settings', () => {
    const names = Object.keys((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts);
    expect(names.filter((name) => !(name in CONFIGURED) && !WITHOUT_SETTINGS.includes(name))).toEqual([]);
  });

  // Every script reads its settings through one function (config.unit.spec.ts checks each rule):
  // here each script shows one refusal, and one script the other kinds (a range, a pair of settings).
  it.each([
    ...Object.keys(CONFIGURED).map((name) => [name, { PORT: 'abc' }, 'PORT must be a whole number from 0 to 65535, got "abc"'] as const),
    ['start', { DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE must be a whole number from 1 to 1000, got 0'] as const,
    ['start', { KAFKA_BROKERS: '127.0.0.1:9092' }, 'SCHEMA_REGISTRY_URL is required when KAFKA_BROKERS is set'] as const,
  ])('npm run %s with %j: exit 2, one line starting error: configuration:, doing nothing', async (name, setting, problem) => {
    const { entry, args } = scripts.find((script) => script.name === name)!;
    const result = await runCli(entry, [...args, ...CONFIGURED[name]!(folder)], { DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...GUARDED[name], ...setting });
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([`error: configuration: ${problem}`]);
    expect(result.stdout).toBe('');
    expect(existsSync(dataDir)).toBe(false);
  });
});
