import { basename } from 'node:path';
import { ExitCode, describeFailure } from '../startup.js';
import { writeFailureLine } from './on-interrupt.js';

function commandName(): string {
  const script = process.env.npm_lifecycle_event;
  return script ? `npm run ${script}` : basename(process.argv[1] ?? 'the command');
}

/** What the system said of a file or folder a command could not use, in words. */
const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of the path is not a folder',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EEXIST: 'it already exists',
};

/** A file or folder the command could not read or write (a path it was given, most often): not a bug. */
function fileProblem(error: unknown): string | undefined {
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  const problem = code === undefined ? undefined : FILE_PROBLEMS[code];
  if (problem === undefined || path === undefined) return undefined;
  return `cannot ${syscall ?? 'use'} ${path}: ${problem}; check the path and its permissions, or choose another`;
}

function reportUnexpectedFailure(error: unknown): never {
  const verbose = /^(debug|trace)$/i.test(process.env.LOG_LEVEL ?? '');
  const file = fileProblem(error);
  const advice = verbose || file ? '' : '; run it again with LOG_LEVEL=debug to see where, and report it with that';
  writeFailureLine(file ? `${commandName()}: ${file}` : `${commandName()} failed unexpectedly: ${describeFailure(error)}${advice}`);
  if (verbose && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exit(ExitCode.failure);
}

/**
 * Called first by every command line when it runs as the program (never on import: a test that
 * imports it keeps its own handling): a failure no command classifies (a bug, or a failure of a
 * kind nobody foresaw) ends the command with one `error: ` line, as every other failure does,
 * and exit 1, instead of Node's stack trace; LOG_LEVEL=debug (or trace) prints the trace too, for
 * a report. Known failures are printed and given their exit codes by the commands themselves;
 * this sees only what escapes them (a rejection nothing awaited included).
 */
export function reportUnexpectedFailures(): void {
  if (process.listeners('uncaughtException').includes(reportUnexpectedFailure)) return;
  process.on('uncaughtException', reportUnexpectedFailure);
}
