import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname } from 'node:path';

/** Raised for a failure the person running the stack can act on; the message says what to do. */
export class StackError extends Error {
  override name = 'StackError';
}

/**
 * A long-running process of the stack, known by its pid file. `marker` is a string its command
 * line must contain (a path inside the stack folder), so a pid recycled by the system for some
 * other program is never taken for ours and never signalled.
 */
export interface ManagedProcess {
  name: string;
  pidFile: string;
  logFile: string;
  marker: string;
}

function commandLine(pid: number): string | undefined {
  const proc = `/proc/${pid}/cmdline`;
  if (existsSync(proc)) {
    try {
      return readFileSync(proc, 'utf8').split('\0').join(' ');
    } catch {
      return undefined;
    }
  }
  const ps = spawnSync('ps', ['-ww', '-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
  return ps.status === 0 ? ps.stdout.trim() : undefined;
}

/** The pid of the process if its pid file names a live java process carrying its marker. */
export function runningPid(managed: ManagedProcess): number | undefined {
  if (!existsSync(managed.pidFile)) return undefined;
  const pid = Number(readFileSync(managed.pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const args = commandLine(pid);
  if (!args || !/\bjava\b/.test(args) || !args.includes(managed.marker)) return undefined;
  return pid;
}

/**
 * Starts a command detached from this process (it outlives the caller), its output in a fresh log
 * file (the previous one kept as .1) and its pid recorded.
 */
export function startDetached(
  managed: ManagedProcess,
  command: string,
  args: string[],
  cwd: string,
): number {
  mkdirSync(dirname(managed.logFile), { recursive: true });
  mkdirSync(dirname(managed.pidFile), { recursive: true });
  if (existsSync(managed.logFile)) renameSync(managed.logFile, `${managed.logFile}.1`);
  const out = openSync(managed.logFile, 'w');
  try {
    const child = spawn(command, args, { cwd, detached: true, stdio: ['ignore', out, out] });
    if (child.pid === undefined) throw new StackError(`could not start ${managed.name} (${command})`);
    child.on('error', () => {}); // a spawn error shows up as the process not answering
    child.unref();
    writeFileSync(managed.pidFile, `${child.pid}\n`);
    return child.pid;
  } finally {
    closeSync(out);
  }
}

export function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false; // 0 and negatives address process groups
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops the process if its pid file names it: TERM, then KILL when it has not exited by the
 * deadline. Returns false when it was not running.
 */
export async function stopProcess(managed: ManagedProcess, timeoutMs = 30_000): Promise<boolean> {
  const pid = runningPid(managed);
  if (pid === undefined) {
    rmSync(managed.pidFile, { force: true });
    return false;
  }
  process.kill(pid, 'SIGTERM');
  const exited = await pollUntil(async () => !alive(pid), { timeoutMs, intervalMs: 200 });
  if (!exited) {
    process.kill(pid, 'SIGKILL');
    await pollUntil(async () => !alive(pid), { timeoutMs: 5_000, intervalMs: 100 });
  }
  rmSync(managed.pidFile, { force: true });
  return true;
}

/**
 * Calls check every intervalMs until it returns true or the deadline passes; stops early (false)
 * when giveUp returns true, e.g. the process being waited for has died.
 */
export async function pollUntil(
  check: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs: number; giveUp?: () => boolean },
): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (options.giveUp?.() || Date.now() >= deadline) return false;
    await new Promise((done) => setTimeout(done, options.intervalMs));
  }
}

/** True when something accepts TCP connections on the port (whatever it is). */
export function portTaken(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ port, host });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', () => done(false));
  });
}

/** The last lines of a log file, for error messages. */
export function tail(file: string, lines = 30): string {
  if (!existsSync(file)) return `(no log at ${file})`;
  const text = readFileSync(file, 'utf8').trimEnd().split('\n');
  return text.slice(-lines).join('\n');
}

/** Runs a command to completion, output captured; throws a StackError with its output on failure. */
export function run(command: string, args: string[], what: string, cwd?: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) {
    throw new StackError(`${what}: cannot run ${command} (${result.error.message}); is it installed and on PATH?`);
  }
  if (result.status !== 0) {
    const output = `${result.stdout}${result.stderr}`.trimEnd().split('\n').slice(-40).join('\n');
    throw new StackError(`${what} failed (${command} exited ${result.status}):\n${output}`);
  }
  return result.stdout;
}
