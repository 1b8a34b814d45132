import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { inject } from 'vitest';
import { BUNDLED_ENTRIES, bundleOf } from './entry-bundles.js';

/** A child process whose output lines a test can wait for. */
export interface FollowedProcess {
  child: ChildProcess;
  /** Resolves with the first output line (past or future) that matches; rejects if the process exits first. */
  waitForLine(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Sends a signal and resolves once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves once the process has exited, whatever ended it. */
  exited: Promise<number | null>;
  output(): string;
}

export interface ServiceProcess extends FollowedProcess {
  /** Resolves with the first JSON log line (past or future) that matches. */
  waitForLog(match: (entry: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
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

/** Starts a program (tracked, output piped) and follows its output lines; JSON lines are also kept parsed. */
function follow(child: ChildProcess, name: string): ServiceProcess {
  track(child);
  const lines: string[] = [];
  const entries: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let text = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A program that cannot be started at all (not on PATH) exits through 'exit' too; keep the reason.
  child.once('error', (error) => (text += `${name}: ${error.message}\n`));
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      text += `${line}\n`;
      lines.push(line);
      if (line.startsWith('{')) {
        try {
          entries.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // Not a JSON log line after all; kept in output() only.
        }
      }
      for (const wake of waiters) wake();
    });
  }

  function waitUntil<T>(items: T[], match: (item: T) => boolean, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      let seen = 0;
      const check = () => {
        for (; seen < items.length; seen++) {
          if (match(items[seen]!)) {
            cleanup();
            resolve(items[seen]!);
            return;
          }
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${name}: no matching ${what} within ${timeoutMs} ms; output:\n${text.slice(-4000)}`));
      }, timeoutMs);
      const onExit = () => {
        check(); // the last lines may still have been in flight
        cleanup();
        reject(new Error(`${name} exited before the expected ${what}; output:\n${text.slice(-4000)}`));
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
  }

  return {
    child,
    exited,
    output: () => text,
    waitForLine: (match, timeoutMs = 60_000) => waitUntil(lines, match, timeoutMs, 'output line'),
    waitForLog: (match, timeoutMs = 60_000) => waitUntil(entries, match, timeoutMs, 'log line'),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Starts a program of the machine (e.g. redis-server) and follows its output. */
export function startProgram(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): ServiceProcess {
  return follow(spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] }), command);
}

/**
 * Node's arguments that run one of the project's entry points (a path from the project's root):
 * its bundle of this run if it has one, else the source through tsx, as the npm scripts run it.
 */
export function entryArgs(entry: string): string[] {
  const bundles = inject('entryBundles');
  if (bundles && BUNDLED_ENTRIES.includes(entry)) return [bundleOf(bundles, entry)];
  return ['--import', 'tsx', entry];
}

/** Starts one of the service's processes (e.g. the projector, a CLI) and follows its JSON logs; `nodeArgs` go to Node before the entry. */
export function startServiceProcess(entry: string, env: Record<string, string>, args: string[] = [], nodeArgs: string[] = []): ServiceProcess {
  const child = spawn(process.execPath, [...nodeArgs, ...entryArgs(entry), ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return follow(child, entry);
}

/** A command run as a terminal runs it; `pressCtrlC` signals its whole process group, as a terminal's Ctrl-C does. */
export interface TerminalCommand extends ServiceProcess {
  pressCtrlC(): void;
}

/**
 * Runs `npm run -s <script> -- <args>` in a process group of its own, as a shell's foreground job:
 * a Ctrl-C reaches npm and the command together, and npm passes its own copy on, so the command
 * gets the signal twice. Stopping it (or the test file's end) kills the whole group.
 */
export function startNpmScript(script: string, args: string[], env: Record<string, string>): TerminalCommand {
  const child = spawn('npm', ['run', '-s', script, '--', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const group = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Gone already.
    }
  };
  const followed = follow(child, `npm run ${script}`);
  child.once('exit', group);
  return {
    ...followed,
    pressCtrlC: () => process.kill(-child.pid!, 'SIGINT'),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, signal);
      return followed.exited;
    },
  };
}
