import type { Command } from '../../commands/command.js';
import { validateInput } from '../../commands/validate.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import type { Projection } from '../../platform/projection/projection.js';
import type { Runtime } from '../../platform/runtime.js';

/** Runs admin commands for one process: the CLI's own, or every caller of a service's. */
export interface CommandExecutor {
  run(command: Command, input: unknown): Promise<Record<string, unknown>>;
}

export interface ExecutorOptions {
  /**
   * The read models of this process's log: a command waits for those of the topics it reads
   * (brought up to the log's end first) and of the topics it writes (its own events applied
   * before it answers); none: it waits for nothing.
   */
  projections: Projection[];
  /** How long a command waits for the read models it checks before answering "retry" (default 10 s). */
  catchUpTimeoutMs?: number;
  /** How long it waits for its own events to be applied before answering anyway (default 5 s, or catchUpTimeoutMs when that is given). */
  appliedTimeoutMs?: number;
  onLateProjection?(error: Error): void;
}

/** The projections fed by any of `topics`. */
const fedBy = (projections: Projection[], topics: readonly string[]) => projections.filter((projection) => projection.topics.some((topic) => topics.includes(topic)));

/**
 * One command at a time, each seeing the read models it checks up to the end of the log and
 * leaving its own events applied for the next one: a developer registered a moment ago is found,
 * and two registrations of one email cannot both pass the uniqueness check. (Across several
 * service processes on Kafka the check is as strong as the projection's lag.) Only the read
 * models of the command's own topics are waited for: a backlog of serves or a projection stuck
 * on a postback does not stop an operator from pausing an offer or revoking a key.
 */
export function commandExecutor(runtime: Runtime, options: ExecutorOptions): CommandExecutor {
  // Short enough for an HTTP caller's timeout: a caller that gave up on a command that then
  // succeeded would not know it had (the admin API's answer came after 30 s with the projector down).
  const timeoutMs = options.catchUpTimeoutMs ?? 10_000;
  const appliedTimeoutMs = options.appliedTimeoutMs ?? options.catchUpTimeoutMs ?? 5_000;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    async run(command, input) {
      // Invalid input is rejected at once, without waiting for a turn.
      const valid = validateInput(command.input, input);
      const turn = queue.then(async () => {
        await awaitCaughtUp(runtime, fedBy(options.projections, command.reads), timeoutMs);
        const result = await command.execute(valid, { runtime, now: () => new Date() });
        // The events are durable already: a slow projection delays the next command, it does not fail this one.
        await awaitCaughtUp(runtime, fedBy(options.projections, command.writes), appliedTimeoutMs).catch((error: Error) => options.onLateProjection?.(error));
        return result;
      });
      queue = turn.catch(() => {});
      return turn;
    },
  };
}
