import { SettingError, configurationProblem, withoutUserinfo } from './config/settings.js';
import { DataDirBusyError } from './data-dir/ownership.js';

/**
 * Exit codes every process of the service shares (the admin CLI documents the same ones):
 * 0 done, 1 unexpected failure, 2 invalid input or configuration, 3 a referenced record is
 * missing, 4 a backend is unavailable (or DATA_DIR is held by another process), 5 a replay found
 * the rebuilt read models different from the live ones.
 */
export const ExitCode = { ok: 0, failure: 1, invalidInput: 2, notFound: 3, unavailable: 4, differs: 5 } as const;

/** A backend named by a setting could not be reached at start-up. */
export class BackendUnavailableError extends Error {
  constructor(readonly setting: string, readonly detail: string, readonly hint: string) {
    super(`${setting}: ${detail}; ${hint}`);
    this.name = 'BackendUnavailableError';
  }
}

/** An endpoint as it may be printed: whatever stands before its last @ (a user and password) redacted. */
export function printable(endpoint: string): string {
  return withoutUserinfo(endpoint).replace(/\/$/, '');
}

/**
 * Runs one backend's start-up step; a failure or a hang past `timeoutMs` becomes one clear error
 * naming the setting (and its endpoint, when given).
 */
export async function reachBackend<T>(
  setting: string,
  hint: string,
  timeoutMs: number,
  open: () => Promise<T>,
  endpoint?: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([open(), timeout]);
  } catch (error) {
    if (error instanceof BackendUnavailableError || error instanceof DataDirBusyError) throw error;
    const name = endpoint === undefined ? setting : `${setting} (${printable(endpoint)})`;
    throw new BackendUnavailableError(name, describeFailure(error), hint);
  } finally {
    clearTimeout(timer);
  }
}

/** The useful part of a connection error: drivers nest the cause or leave the message empty. */
export function describeFailure(error: unknown): string {
  const failure = error as { message?: string; code?: string; errors?: unknown[]; cause?: unknown };
  if (Array.isArray(failure.errors) && failure.errors.length > 0) return describeFailure(failure.errors[0]);
  const message = failure.message?.split('\n')[0]?.trim();
  // fetch() says only "fetch failed"; the reason is its cause.
  if (message && failure.cause) {
    const cause = describeFailure(failure.cause);
    // kafkajs wraps a closed connection in an error of the same words.
    return cause === message || message.endsWith(`: ${cause}`) ? message : `${message}: ${cause}`;
  }
  if (message) return message;
  if (failure.code) return failure.code;
  if (failure.cause) return describeFailure(failure.cause);
  return String(error);
}

/** What to tell a user whose DATA_DIR is held, by what they tried to run. */
export function busyAdvice(error: DataDirBusyError, action: string): string {
  const owner = error.owner;
  const stop = owner ? `stop pid ${owner.pid} first` : 'stop the other process first';
  return `${error.message}: ${action} needs it alone; ${stop}, or set DATA_DIR to another folder`;
}

/** A setting the process cannot run with: one failure line naming it, exit 2. */
export function exitOnSettingError(error: SettingError): never {
  process.stderr.write(`error: ${configurationProblem(error)}\n`);
  process.exit(ExitCode.invalidInput);
}

/**
 * For process entry points: known start-up failures end the process with one line and their exit
 * code (2 configuration, 4 backend or DATA_DIR); anything else is rethrown.
 */
export function exitOnStartupFailure(error: unknown, action: string): never {
  if (error instanceof SettingError) exitOnSettingError(error);
  if (error instanceof DataDirBusyError) {
    process.stderr.write(`error: ${busyAdvice(error, action)}\n`);
    process.exit(ExitCode.unavailable);
  }
  if (error instanceof BackendUnavailableError) {
    process.stderr.write(`error: cannot start ${action}: ${error.message}\n`);
    process.exit(ExitCode.unavailable);
  }
  throw error;
}
