import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Command } from '../../commands/command.js';
import { loadConfig } from '../../platform/config/config.js';
import { OWNER_CHALLENGE, OWNER_TOKEN_FILE, ownerAddress, ownerProof } from '../../platform/data-dir/owner-client.js';
import { startOwnerJob } from '../../platform/data-dir/owner-jobs.js';
import { acquireDataDir, DataDirBusyError, type OwnerRole } from '../../platform/data-dir/ownership.js';
import { BackendUnavailableError } from '../../platform/startup.js';
import { CommandFailedError, runAdminCommandAnywhere } from '../../services/admin/command-gateway.js';

/**
 * The command-line waits for DATA_DIR's owner keep their budget when the machine's wall clock is
 * stepped in the middle of one (an NTP correction): a step forward must not end the wait at once,
 * a step back must not hold the command for as long as the step. Only the clocks are fakes: Date
 * and performance (stepped and advanced by the owner as it answers); the owner is a real socket
 * and the pauses between its answers are real.
 */
const STEP_MS = 10 * 60_000;

/** An owner of `dataDir` that never gets ready, calling `onAnswer` before each answer to the requests the wait repeats. */
async function stubbornOwner(dataDir: string, options: { role: OwnerRole; proves: boolean; counts: (request: IncomingMessage) => boolean; onAnswer: (count: number) => void }) {
  const token = 'owner-token-for-tests';
  writeFileSync(join(dataDir, OWNER_TOKEN_FILE), `${token}\n`, { mode: 0o600 });
  let count = 0;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (options.counts(request)) options.onAnswer(++count);
    const url = new URL(request.url ?? '/', 'http://owner');
    const challenge = url.searchParams.get(OWNER_CHALLENGE);
    const body =
      url.pathname === '/owner'
        ? { pid: 1, role: options.role, description: 'a stubborn owner', started_at: new Date().toISOString(), accepting_commands: false, ...(options.proves && challenge ? { proof: ownerProof(token, challenge) } : {}) }
        : { code: 'OWNER_NOT_READY', message: 'the service is starting; retry shortly', data: {}, extra: {} };
    response.writeHead(url.pathname === '/owner' ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(ownerAddress(dataDir), resolve));
  return { count: () => count, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const isPost = (request: IncomingMessage) => request.method === 'POST';
const isOwnerQuestion = (request: IncomingMessage) => request.method === 'GET' && request.url!.startsWith('/owner');
const command = { name: 'developer:register' } as Command;

const WAITS = [
  {
    name: 'a job started on a service still opening its database (startOwnerJob)',
    budgetMs: 60_000,
    owner: { role: 'service', proves: true, counts: isPost },
    wait: async (dataDir: string) => expect(await startOwnerJob(dataDir, '/replays', {})).toMatchObject({ refusal: { status: 503, body: { code: 'OWNER_NOT_READY' } } }),
  },
  {
    name: 'a command sent to a service still opening its database (runAdminCommandAnywhere)',
    budgetMs: 60_000,
    owner: { role: 'service', proves: true, counts: isPost },
    wait: (dataDir: string) => expect(runAdminCommandAnywhere(loadConfig({ DATA_DIR: dataDir }), command, {})).rejects.toThrow(CommandFailedError),
  },
  {
    name: 'a command waiting for another command to release DATA_DIR (runAdminCommandAnywhere)',
    budgetMs: 60_000,
    owner: { role: 'tool', proves: true, counts: isOwnerQuestion },
    wait: (dataDir: string) => expect(runAdminCommandAnywhere(loadConfig({ DATA_DIR: dataDir }), command, {})).rejects.toThrow(DataDirBusyError),
  },
  {
    name: 'a process waiting for the owner socket to prove itself (acquireDataDir)',
    budgetMs: 2_000,
    owner: { role: 'tool', proves: false, counts: isOwnerQuestion },
    wait: (dataDir: string) => expect(acquireDataDir(dataDir, 'tool', 'a test')).rejects.toThrow(BackendUnavailableError),
  },
] as const;

describe.each(WAITS)('$name when the wall clock steps during the wait', ({ budgetMs, owner, wait }) => {
  const dataDirs: string[] = [];
  const owners: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(owners.splice(0).map((stub) => stub.close()));
    for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function waitWith(onAnswer: (count: number) => void): Promise<number> {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const dataDir = mkdtempSync(join(tmpdir(), 'owner-wait-'));
    dataDirs.push(dataDir);
    const stub = await stubbornOwner(dataDir, { ...owner, onAnswer });
    owners.push(stub);
    await wait(dataDir);
    return stub.count();
  }

  it('goes on after a step forward, until its budget has passed', async () => {
    const asked = await waitWith((count) => {
      if (count === 1) vi.setSystemTime(Date.now() + STEP_MS);
      if (count === 2) vi.advanceTimersByTime(budgetMs + 1_000);
    });
    expect(asked).toBe(2);
  });

  it('ends when its budget has passed after a step back, not as much later as the step', async () => {
    const asked = await waitWith((count) => {
      if (count === 1) {
        vi.setSystemTime(Date.now() - STEP_MS);
        vi.advanceTimersByTime(budgetMs + 1_000);
      }
      // Only a wait timed by the wall clock asks again: past the step, so that it ends too.
      if (count === 2) vi.advanceTimersByTime(STEP_MS);
    });
    expect(asked).toBe(1);
  });
});
