import { CommandInputError, CommandNotFoundError, type Command } from '../../commands/command.js';
import type { Config } from '../../platform/config/config.js';
import { readOwnerToken, requestOwner } from '../../platform/data-dir/owner-client.js';
import { DataDirBusyError } from '../../platform/data-dir/ownership.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { ExitCode } from '../../platform/startup.js';
import { projections, startProjectors } from '../projector/projectors.js';
import { commandExecutor } from './command-executor.js';

/** How long a command waits for DATA_DIR held by another short command, or for a starting service. */
const WAIT_FOR_OWNER_MS = 60_000;
/** With a separate projector (Postgres or Kafka), how long to let it catch up before projecting here. */
const EXTERNAL_PROJECTOR_GRACE_MS = 3_000;

/** A command the service refused or could not run, with the exit code the CLI should end with. */
export class CommandFailedError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
    this.name = 'CommandFailedError';
  }
}

interface Envelope {
  code: string;
  message: string;
  data: Record<string, unknown>;
  extra: { field?: string };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the CLI says when the service's socket fails under a command (the service stopped or was
 * killed): refused before anything was sent, the command was not run; once sent, it may have
 * been applied (its events appended) before the answer was lost, so look before running it again.
 */
export function ownerLost(command: string, error: unknown): CommandFailedError {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'ECONNREFUSED' || code === 'ENOENT') {
    return new CommandFailedError(`the service that holds DATA_DIR is not answering on its socket (${message}); ${command} was not run: run it again`, ExitCode.unavailable);
  }
  return new CommandFailedError(
    `the service that holds DATA_DIR stopped answering before it replied (${message}); ${command} may or may not have been applied: look (e.g. offer:explain-targeting, the read routes) before running it again`,
    ExitCode.unavailable,
  );
}

/** Sends the command to the service that owns DATA_DIR, over its owner socket; `deadline` on performance.now(). */
async function runOnOwner(config: Config, command: Command, input: unknown, deadline: number): Promise<Record<string, unknown>> {
  for (;;) {
    const token = readOwnerToken(config.dataDir);
    const reply = await requestOwner<Envelope>(config.dataDir, 'POST', `/commands/${encodeURIComponent(command.name)}`, {
      body: input,
      token,
      timeoutMs: 120_000,
    }).catch((error: unknown) => Promise.reject(ownerLost(command.name, error)));
    if (reply.status === 200) return reply.body.data;
    // Still opening its database: wait for it rather than fail a command typed a second early.
    if (reply.body.code === 'OWNER_NOT_READY' && performance.now() < deadline) {
      await pause(200);
      continue;
    }
    const field = reply.body.extra?.field;
    const message = field && reply.body.message.startsWith(`${field}: `) ? reply.body.message.slice(field.length + 2) : reply.body.message;
    if (reply.status === 400) throw new CommandInputError(field ?? 'input', message);
    if (reply.status === 404 && field) throw new CommandNotFoundError(field, message);
    throw new CommandFailedError(`the service answered ${reply.status} ${reply.body.code}: ${reply.body.message}`, reply.status === 503 ? ExitCode.unavailable : ExitCode.failure);
  }
}

/**
 * Runs the command in this process with the read models it checks brought to the log's end
 * first, so it sees every record written before it: by the projectors already running
 * elsewhere, or by projecting here when nothing else does (the embedded DATA_DIR, which this
 * process now holds, or a log in Postgres with no projector running). Through the same executor
 * as the service's commands: it takes its turn under the database's admin-command lock, with
 * those of every API process, and on Kafka, where the projector processes are expected to run
 * (joining their consumer groups from a one-shot command would stall it for seconds and
 * rebalance them), read models that stay behind refuse the command (exit 4) rather than let it
 * check against a stale one (an email registered twice).
 */
async function runHere(runtime: Runtime, command: Command, input: unknown): Promise<Record<string, unknown>> {
  const projectedElsewhere =
    !runtime.owner &&
    (runtime.eventLog.kind === 'kafka' || (await awaitCaughtUp(runtime, projections, EXTERNAL_PROJECTOR_GRACE_MS).then(() => true, () => false)));
  const local = projectedElsewhere ? undefined : await startProjectors(runtime);
  try {
    return await commandExecutor(runtime, { projections }).run(command, input);
  } finally {
    await local?.stop();
  }
}

/**
 * Where an admin command runs: through the service when it owns the embedded DATA_DIR, else in
 * this process (waiting its turn when another short command holds DATA_DIR).
 */
export async function runAdminCommandAnywhere(config: Config, command: Command, input: unknown): Promise<Record<string, unknown>> {
  // On the monotonic clock: a step of the wall clock (NTP) neither ends the wait at once nor stretches it.
  const deadline = performance.now() + WAIT_FOR_OWNER_MS;
  for (;;) {
    let runtime: Runtime;
    try {
      runtime = await openRuntime(config, { role: 'tool', description: `npm run admin -- ${command.name}`, redis: false });
    } catch (error) {
      if (!(error instanceof DataDirBusyError)) throw error;
      if (error.owner?.role === 'service') return runOnOwner(config, command, input, deadline);
      if (performance.now() >= deadline) throw error;
      await pause(100);
      continue;
    }
    try {
      return await runHere(runtime, command, input);
    } finally {
      await runtime.close();
    }
  }
}
