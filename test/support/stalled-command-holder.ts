/**
 * A process that runs `developer:register` (the input is argv[2], JSON) through the admin-command
 * executor and stops itself (SIGSTOP) once the command has checked the email and is about to
 * append: what other processes see of an API paused in the middle of a command, its turn taken.
 * Started by a test with the service's environment; prints `stopping` just before it stops, and
 * after it is continued (SIGCONT) `append written` or `append refused: <why>`, then
 * `command: <result or error>`, and exits.
 */
import type { Command } from '../../commands/command.js';
import { adminCommands } from '../../commands/index.js';
import type { EventLog } from '../../platform/events/event-log.js';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime } from '../../platform/runtime.js';
import { commandExecutor } from '../../services/admin/command-executor.js';

const say = (line: string) => process.stdout.write(`${line}\n`);
/** The append once it is attempted: the process waits for it before it closes its log, which would fail it otherwise. */
let appending: Promise<unknown> | undefined;

/** The log as the command sees it, with the process stopping itself before its first append. */
function stoppingBeforeAppend(log: EventLog): EventLog {
  return {
    ...log,
    async append(topic, events, options) {
      say('stopping');
      process.kill(process.pid, 'SIGSTOP');
      const appended = log.append(topic, events, options);
      appending = appended.then(
        () => say('append written'),
        (error: Error) => say(`append refused: ${error.message}`),
      );
      return appended;
    },
  };
}

const register = adminCommands.find((command) => command.name === 'developer:register')!;
const stalling: Command = {
  ...register,
  execute: (input, context) => register.execute(input, { ...context, runtime: { ...context.runtime, eventLog: stoppingBeforeAppend(context.runtime.eventLog) } }),
};

const runtime = await openRuntime(loadConfig(process.env), { role: 'tool', redis: false });
try {
  // Short budgets, so that its turn is over (and another process may take it) soon after it stops.
  const commands = commandExecutor(runtime, { projections: [], catchUpTimeoutMs: 1_000, executeTimeoutMs: 1_000, appliedTimeoutMs: 1_000, turnLimitMs: Number(process.env.TURN_LIMIT_MS) });
  const result = await commands.run(stalling, JSON.parse(process.argv[2]!)).then(
    (value) => JSON.stringify(value),
    (error: Error) => `${error.name}: ${error.message}`,
  );
  say(`command: ${result}`);
  await appending;
} finally {
  await runtime.close();
}
