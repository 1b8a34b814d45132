import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { ownerAddress } from '../../platform/data-dir/owner-client.js';
import { openRuntime } from '../../platform/runtime.js';
import { ownLines, printed, runAdmin, runCli } from '../support/cli.js';
import type { ServiceProcess } from '../support/child-process.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { startApi } from '../support/service-processes.js';
import { freePort } from '../support/stack.js';

/**
 * Every test gets a fresh embedded DATA_DIR, holding an empty cluster unless it watches the
 * database being created; every service it starts is stopped, even on failure.
 */
const dataDirs: string[] = [];
const services: ServiceProcess[] = [];
function freshDataDir(options: { empty?: boolean } = {}): Record<string, string> {
  const dir = options.empty ? mkdtempSync(join(tmpdir(), 'offer-ledger-owner-')) : dataDirWithCluster('offer-ledger-owner-');
  dataDirs.push(dir);
  return { DATA_DIR: dir, LOG_LEVEL: 'info' };
}
async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startApi(env);
  services.push(service);
  return service;
}
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.stop('SIGKILL')));
});
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** What the embedded database holds, read once no service owns the folder. */
async function stored(env: Record<string, string>) {
  const runtime = await openRuntime(loadConfig(env));
  try {
    const events = await runtime.db.query<{ count: string }>("SELECT count(*) FROM event_log WHERE topic = 'accounts'");
    const developers = await runtime.db.query<{ email: string }>('SELECT email FROM account_developers ORDER BY email');
    return { events: Number(events.rows[0]!.count), emails: developers.rows.map((row) => row.email) };
  } finally {
    await runtime.close();
  }
}

const register = (env: Record<string, string>, email: string) => runAdmin(env, 'developer:register', { name: email.split('@')[0]!, email });

// Every step starts a process (and in it an embedded Postgres): seconds each on a busy 2-core machine.
const PROCESS_TESTS_MS = 240_000;

describe('one owner of an embedded DATA_DIR', () => {
  it('applies admin commands sent while the service runs, concurrently, and keeps them across a restart', async () => {
    const env = freshDataDir({ empty: true });
    const service = await startService(env);
    // Opening the embedded database is said before and after: a new one takes seconds to create,
    // and after a kill an existing one may first recover for a while.
    expect(service.output()).toMatch(/embedded database: creating .*\(a new one takes several seconds\)".*\n(.*\n)*.*embedded database: open in \d+\.\d s/);
    const emails = ['a@example.test', 'b@example.test', 'c@example.test'];
    const results = await Promise.all(emails.map((email) => register(env, email)));
    const offsets = results.map((result) => printed(result).offset);
    expect(new Set(offsets).size).toBe(3);
    // Applied by the running service at once: the next command finds the developer.
    const developer = printed(results[0]!).developer_id!;
    printed(await runAdmin(env, 'application:register', { 'developer-id': developer, name: 'App' }));
    // The uniqueness check sees what the service just wrote.
    const duplicate = await register(env, 'b@example.test');
    expect(duplicate.status).toBe(2);
    expect(ownLines(duplicate.stderr)).toEqual([expect.stringMatching(/^error: email: is already registered/)]);

    expect(await service.stop('SIGTERM')).toBe(0);
    expect(await stored(env)).toEqual({ events: 4, emails });
    const again = await startService(env);
    expect(again.output()).toMatch(/embedded database: opening .*\(after an unclean stop it recovers first, which can take a while\)".*\n(.*\n)*.*embedded database: open in \d+\.\d s/);
    expect(await again.stop('SIGTERM')).toBe(0);
  }, PROCESS_TESTS_MS);

  it('registers one of two concurrent commands with the same email through the service', async () => {
    const env = freshDataDir();
    await startService(env);
    const results = await Promise.all([register(env, 'same@example.test'), register(env, 'same@example.test')]);
    expect(results.map((result) => result.status).sort()).toEqual([0, 2]);
  }, PROCESS_TESTS_MS);

  it('refuses a second service on the same folder at once, with one line and exit code 4', async () => {
    const env = freshDataDir();
    const first = await startService(env);
    const second = await runCli('services/api/main.ts', [], { ...env, PORT: String(await freePort()) });
    expect(second.status).toBe(4);
    expect(ownLines(second.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^error: DATA_DIR .* is in use by the service \\(pid ${first.child.pid}: .*stop pid ${first.child.pid} first, or set DATA_DIR to another folder$`)),
    ]);
  }, PROCESS_TESTS_MS);

  it('refuses geo:load, migrate and seed while the service owns the folder', async () => {
    const env = freshDataDir();
    await startService(env);
    for (const [entry, args] of [
      ['reference/locations/full/load-cli.ts', [GEO_EXCERPT_FILE]],
      ['platform/db/migrate-cli.ts', []],
      ['services/admin/seed/main.ts', ['--offers', '3', '--no-progress']],
    ] as const) {
      const result = await runCli(entry, [...args], env);
      expect(result.status, entry).toBe(4);
      expect(ownLines(result.stderr), entry).toEqual([expect.stringMatching(/^error: DATA_DIR .* is in use by the service .* needs it alone/)]);
    }
  }, PROCESS_TESTS_MS);

  it('loses nothing acknowledged when the owner is killed, and a new owner starts at once', async () => {
    const env = freshDataDir();
    const first = await startService(env);
    const emails = Array.from({ length: 3 }, (_, index) => `killed${index}@example.test`);
    for (const email of emails) printed(await register(env, email));
    await first.stop('SIGKILL');

    const second = await startService(env);
    // The new owner answers commands and still knows every acknowledged developer.
    expect((await register(env, emails[0]!)).status).toBe(2);
    printed(await register(env, 'after@example.test'));
    expect(await second.stop('SIGTERM')).toBe(0);
    expect(await stored(env)).toEqual({ events: 4, emails: ['after@example.test', ...emails].sort() });
  }, PROCESS_TESTS_MS);

  it('without a service, commands in sequence see each other and concurrent ones take turns', async () => {
    const env = freshDataDir({ empty: true });
    const first = await register(env, 'solo@example.test');
    const developer = printed(first).developer_id!;
    // The folder held no database: the command says it made one (a mistyped DATA_DIR shows at once).
    expect(first.stderr).toContain(`note: DATA_DIR ${env.DATA_DIR} held no database: this command created one there`);
    const second = await runAdmin(env, 'application:register', { 'developer-id': developer, name: 'App' });
    printed(second);
    expect(second.stderr).not.toContain('held no database');
    expect((await register(env, 'solo@example.test')).status).toBe(2);

    const concurrent = await Promise.all(['x@example.test', 'y@example.test', 'z@example.test', 'x@example.test'].map((email) => register(env, email)));
    expect(concurrent.map((result) => result.status).sort()).toEqual([0, 0, 0, 2]);
    expect(await stored(env)).toEqual({ events: 5, emails: ['solo@example.test', 'x@example.test', 'y@example.test', 'z@example.test'] });
  }, PROCESS_TESTS_MS);
});

describe('an embedded DATA_DIR on a machine with other users', () => {
  it('keeps the database folder to this user (the engine writes its files 0666), and a folder it creates too', async () => {
    const parent = freshDataDir().DATA_DIR!;
    const dataDir = join(parent, 'new');
    const runtime = await openRuntime(loadConfig({ DATA_DIR: dataDir }));
    await runtime.close();
    expect(statSync(join(dataDir, 'pg')).mode & 0o777).toBe(0o700);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it("takes a stranger on the owner socket's name for neither an owner nor a free folder: commands are not sent to it", async () => {
    const env = freshDataDir();
    // Another user's process can bind the abstract name while no owner runs, and claim to be a service.
    const received: string[] = [];
    const squatter = createServer((request, response) => {
      received.push(`${request.method} ${request.url}`);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(request.url?.startsWith('/owner')
        ? { pid: 4242, role: 'service', description: 'npm start', started_at: new Date().toISOString(), accepting_commands: true, proof: '00'.repeat(32) }
        : { code: 'SUCCESS', message: '', data: { developer_id: 'forged' }, extra: {} }));
    });
    await new Promise<void>((resolve) => squatter.listen(ownerAddress(env.DATA_DIR!), resolve));
    try {
      const command = await register(env, 'squatted@example.test');
      expect(command.status).toBe(4);
      expect(ownLines(command.stderr)).toEqual([expect.stringMatching(/held by a process that cannot prove it holds the folder \(pid 4242, by its own account\).*ss -xlp/)]);
      const service = await runCli('services/api/main.ts', [], { ...env, PORT: String(await freePort()) });
      expect(service.status).toBe(4);
      expect(ownLines(service.stderr)).toEqual([expect.stringMatching(/cannot prove it holds the folder/)]);
      // Asked to prove itself, never sent a command (nor the token, which only a command carries).
      expect(received.length).toBeGreaterThan(0);
      expect(received.every((line) => /^GET \/owner\?challenge=[0-9a-f]{32}$/.test(line))).toBe(true);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, PROCESS_TESTS_MS);
});
