import type { Command, CommandContext } from './command.js';
import { validateInput } from './validate.js';

/**
 * Validates, then executes. Callers that must refuse bad input before something else (the admin
 * CLI before it opens the backends, the executor before a command waits its turn) call the two steps themselves.
 */
export async function runCommand(command: Command, input: unknown, context: CommandContext) {
  return command.execute(validateInput(command.input, input), context);
}
