import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProgram, type FollowedProcess } from './child-process.js';
import { freePort } from './stack.js';

/**
 * A redis-server of one test file's own on a free port (the machine's binary), so a test can stop
 * Redis without touching the one other tests share. Nothing is persisted: a stopped Redis comes
 * back empty, as a Redis used only for caches and rate limits may.
 */
export interface PrivateRedis {
  url: string;
  /** SIGTERM, resolves once it has exited. */
  stop(): Promise<void>;
  /** SIGSTOP: it keeps its connections but answers nothing (a hung server, a black-holed network) until resumed. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'offer-ledger-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  let server: FollowedProcess | undefined;

  async function start() {
    if (server && server.child.exitCode === null && server.child.signalCode === null) return;
    server = startProgram('redis-server', args);
    // Redis prints this once it listens; the wait ends there, or with an error if it exits first.
    await server.waitForLine((line) => line.includes('Ready to accept connections'), 30_000);
  }
  async function stop() {
    await server?.stop('SIGTERM');
    server = undefined;
  }

  try {
    await start();
  } catch (error) {
    await stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    pause: () => void server?.child.kill('SIGSTOP'),
    resume: () => void server?.child.kill('SIGCONT'),
    async close() {
      server?.child.kill('SIGCONT');
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
