import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ownLines, runCli } from '../support/cli.js';
import { freePort } from '../support/stack.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';

/**
 * A backend that does not answer at start ends every entry point with one line naming the setting
 * and exit code 4; bad options end with exit code 2. Ports come from freePort(), so nothing listens.
 */
const dataDir = dataDirWithCluster('offer-ledger-startup-');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const secret = { KEY_HASH_SECRET: 'k'.repeat(40) };
const entries = {
  api: ['services/api/main.ts', []],
  admin: ['services/admin/cli.ts', ['developer:register', '--name', 'N', '--email', 'n@example.test']],
  seed: ['services/admin/seed/main.ts', ['--offers', '2', '--no-progress']],
} as const;

describe('start-up failures', () => {
  it.each([
    ['DATABASE_URL', async () => ({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/offer_ledger`, ...secret })],
    ['REDIS_URL', async () => ({ DATA_DIR: dataDir, REDIS_URL: `redis://127.0.0.1:${await freePort()}` })],
    ['KAFKA_BROKERS', async () => ({ DATA_DIR: dataDir, KAFKA_BROKERS: `127.0.0.1:${await freePort()}`, SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1/apis/ccompat/v7' })],
    ['SCHEMA_REGISTRY_URL', async () => {
      const { kafkaBrokers } = (await import('vitest')).inject('stack');
      return { DATA_DIR: dataDir, KAFKA_BROKERS: kafkaBrokers.join(','), SCHEMA_REGISTRY_URL: `http://127.0.0.1:${await freePort()}/apis/ccompat/v7` };
    }],
  ])('an unreachable %s: one line naming it, exit code 4, from the API, the admin CLI and the seed (Redis: the API only)', async (setting, environment) => {
    const env = { ...(await environment()), PORT: String(await freePort()) };
    // Only the API uses Redis: the commands never connect it, so it cannot stop them.
    const using = setting === 'REDIS_URL' ? { api: entries.api } : entries;
    for (const [name, [entry, args]] of Object.entries(using)) {
      const result = await runCli(entry, [...args], env);
      expect(result.status, name).toBe(4);
      const lines = ownLines(result.stderr).filter((line) => !line.startsWith('migrating '));
      expect(lines, name).toEqual([expect.stringMatching(new RegExp(`^error: cannot (start|run) .*: ${setting} \\(.*\\): .*ECONNREFUSED.*; `))]);
    }
    if (setting === 'REDIS_URL') {
      const admin = await runCli(entries.admin[0], [...entries.admin[1]], env);
      expect(admin.status, admin.stderr).toBe(0);
    }
    // Three processes in turn (two of them opening an embedded Postgres).
  }, 180_000);

  it.each([
    [['--bogus'], /unknown option '--bogus'/],
    [['--seed', 'x'], /--seed must be a whole number/],
    [['--offers', '1.5'], /--offers must be a whole number/],
    [['stray'], /too many arguments/],
  ])('the seed rejects %j with exit code 2', async (args, message) => {
    const result = await runCli('services/admin/seed/main.ts', args, { DATA_DIR: dataDir });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
