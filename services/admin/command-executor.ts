import { CommandUnavailableError, type Command } from '../../commands/command.js';
import { PAST_DEADLINE, withinDeadline } from '../../platform/async/deadline.js';
import { validateInput } from '../../commands/validate.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import type { Projection } from '../../platform/projection/projection.js';
import type { Runtime } from '../../platform/runtime.js';
import { fencedRuntime, holdingCommandTurn, TURN_LIMIT_MS } from './command-turn.js';

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
  /**
   * How long a command's own work (its reads and its append) may take before its caller is
   * answered 503 (default 5 s): a log that cannot take writes (too few brokers in sync) would
   * otherwise hold the caller for as long as the Kafka client retries.
   */
  executeTimeoutMs?: number;
  /**
   * How long a command may hold its turn across processes (default TURN_LIMIT_MS; every process
   * on one database must use the same): its catch-up is cut short so that its turn fits, and a
   * turn held longer is taken over by another process (command-turn.ts).
   */
  turnLimitMs?: number;
  onLateProjection?(error: Error): void;
}

/** The caller's answer when an earlier command's work held its turn too long: it never runs. */
export const COMMAND_NOT_STARTED = 'an earlier admin command is still waiting for the log or a read model; nothing was done; retry shortly';

/** The caller's answer when the command's own work outlived its deadline: it goes on, and may still append. */
export const COMMAND_MAY_BE_WRITTEN =
  'the command did not complete in time: the log or a read model did not answer; it may still be written, so look before repeating a command that is not idempotent (api-key:issue, developer:register …)';

/** The least a command's catch-up gets, however long it waited for its turn. */
const MIN_CATCH_UP_MS = 1_000;

/** What a turn keeps beyond its catch-up, work and wait for its events: its commit, the scheduling of its steps. */
const TURN_SLACK_MS = 1_000;

/** The projections fed by any of `topics`. */
const fedBy = (projections: Projection[], topics: readonly string[]) => projections.filter((projection) => projection.topics.some((topic) => topics.includes(topic)));

/**
 * One command at a time, each seeing the read models it checks up to the end of the log and
 * leaving its own events applied for the next one: a developer registered a moment ago is found,
 * and two registrations of one email cannot both pass the uniqueness check. Across the processes
 * of one Postgres (several APIs, the admin CLI) too: the turn is held by a database lock
 * (holdingCommandTurn). Only the read
 * models of the command's own topics are waited for: a backlog of serves or a projection stuck
 * on a postback does not stop an operator from pausing an offer or revoking a key.
 */
export function commandExecutor(runtime: Runtime, options: ExecutorOptions): CommandExecutor {
  // Short enough for an HTTP caller's timeout: a caller that gave up on a command that then
  // succeeded would not know it had (the admin API's answer came after 30 s with the projector down).
  const timeoutMs = options.catchUpTimeoutMs ?? 10_000;
  const appliedTimeoutMs = options.appliedTimeoutMs ?? options.catchUpTimeoutMs ?? 5_000;
  const executeTimeoutMs = options.executeTimeoutMs ?? 5_000;
  const turnLimitMs = options.turnLimitMs ?? TURN_LIMIT_MS;
  // Once its turn is taken, a command's catch-up ends in time for its work and its wait for its
  // events to fit in the turn (budgets longer than the defaults, as tests give, may still outlast
  // it: such a command's append past the limit is refused, nothing written).
  const catchUpInTurnMs = Math.max(MIN_CATCH_UP_MS, turnLimitMs - executeTimeoutMs - appliedTimeoutMs - TURN_SLACK_MS);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    async run(command, input) {
      // Invalid input is rejected at once, without waiting for a turn.
      const valid = validateInput(command.input, input);
      // Monotonic: a step of the wall clock while a command waits its turn must not change its budget.
      const calledAt = performance.now();
      const previous = queue;
      let execution: Promise<Record<string, unknown>> | undefined;
      let started = false;
      let abandoned = false;
      const turn = previous.then(async () => {
        if (abandoned) throw new CommandUnavailableError('COMMAND_UNAVAILABLE', COMMAND_NOT_STARTED);
        started = true;
        // The wait for a turn (here, then across processes) and the catch-up share one budget (at
        // least a second for the catch-up): a command queued behind one held by a hung broker answered after 19 s.
        const left = () => Math.max(MIN_CATCH_UP_MS, timeoutMs - (performance.now() - calledAt));
        return holdingCommandTurn(runtime, left, turnLimitMs, async (turn) => {
          await awaitCaughtUp(runtime, fedBy(options.projections, command.reads), Math.min(left(), catchUpInTurnMs));
          execution = command.execute(valid, { runtime: fencedRuntime(runtime, turn), now: () => new Date() });
          const result = await withinDeadline(execution, executeTimeoutMs);
          if (result === PAST_DEADLINE) throw new CommandUnavailableError('COMMAND_UNAVAILABLE', COMMAND_MAY_BE_WRITTEN);
          // The events are durable already: a slow projection delays the next command, it does not fail this one.
          await awaitCaughtUp(runtime, fedBy(options.projections, command.writes), appliedTimeoutMs).catch((error: Error) => options.onLateProjection?.(error));
          return result;
        });
      });
      // The next command waits for this one's work to end, not for its caller's answer: commands
      // stay in order (a registration given up on and written late still precedes the next check).
      queue = turn.catch(() => execution?.catch(() => {}));
      // A caller is not held behind an earlier command for longer than a catch-up would hold it.
      if ((await withinDeadline(previous, timeoutMs)) === PAST_DEADLINE && !started) {
        abandoned = true;
        throw new CommandUnavailableError('COMMAND_UNAVAILABLE', COMMAND_NOT_STARTED);
      }
      return turn;
    },
  };
}
