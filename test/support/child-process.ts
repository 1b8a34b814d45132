import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ServiceProcess {
  child: ChildProcess;
  /** Resolves with the first JSON log line (past or future) that matches. */
  waitForLog(match: (entry: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Sends a signal and resolves once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  output(): string;
}

/** Every child a test started and that has not exited: stopped after each test file, pass or fail. */
const running = new Set<ChildProcess>();

/** SIGKILLs every child still running and waits for them to exit (see test/support/children-cleanup.ts). */
export async function stopAllChildren(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Tracks a child until it exits, so no test leaves one behind. */
export function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Starts one of the service's processes (e.g. the projector) with tsx and follows its JSON logs. */
export function startServiceProcess(entry: string, env: Record<string, string>): ServiceProcess {
  const child = track(spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  const entries: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let text = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      text += `${line}\n`;
      try {
        entries.push(JSON.parse(line) as Record<string, unknown>);
        for (const wake of waiters) wake();
      } catch {
        // Not a JSON log line (e.g. a migration message); kept in output() only.
      }
    });
  }
  return {
    child,
    output: () => text,
    waitForLog(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = entries.find(match);
          if (found) {
            cleanup();
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no matching log line within ${timeoutMs} ms; output:\n${text.slice(-4000)}`));
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`process exited before the expected log line; output:\n${text.slice(-4000)}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
          child.off('exit', onExit);
        };
        waiters.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
