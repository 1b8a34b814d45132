import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { entryArgs, track } from './child-process.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node <args>` and resolves with how it ended. Asynchronous on purpose: a vitest worker
 * blocked in spawnSync answers none of vitest's own calls, which under load it reports as
 * "Timeout calling onTaskUpdate", failing the run though every test passed.
 */
export function runNode(args: string[], options: { env: NodeJS.ProcessEnv; timeoutMs?: number; what?: string }): Promise<CliResult> {
  const { env, timeoutMs = 90_000, what = args.join(' ') } = options;
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not finish within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Runs one of the project's command-line entry points (see entryArgs) with only the given environment. */
export const runCli = (entry: string, args: string[], env: Record<string, string>, timeoutMs = 90_000): Promise<CliResult> =>
  runNode([...entryArgs(entry), ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeoutMs, what: `${entry} ${args.join(' ')}` });

/** `npm run admin -- <command> …` */
export const runAdmin = (env: Record<string, string>, command: string, flags: Record<string, string>) =>
  runCli('services/admin/cli.ts', [command, ...Object.entries(flags).flatMap(([flag, value]) => [`--${flag}`, value])], env);

/** The JSON an admin command printed on success; fails with its stderr otherwise. */
export function printed(result: CliResult): Record<string, string> {
  if (result.status !== 0) throw new Error(`exit ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, string>;
}

/** The lines a failed command wrote that are its own (not npm's or Node's warnings). */
export const ownLines = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '' && !/^npm warn|ExperimentalWarning|--trace-warnings/.test(line));

/** Every `npm run` script that starts a program of the project: its entry file and the arguments the script gives it (package.json). */
export function npmScripts(): { name: string; entry: string; args: string[] }[] {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
  return Object.entries(scripts).flatMap(([name, line]) => {
    const found = /(?:^|\s)(?:tsx|--import tsx) ([\w/.-]+\.ts)((?: [\w:-]+)*)$/.exec(line);
    return found ? [{ name, entry: found[1]!, args: found[2]!.trim().split(' ').filter((arg) => arg !== '') }] : [];
  });
}
