import type { Command, CommandContext } from './command.js';
import { validateInput } from './validate.js';

/** Validates, then executes: what every caller of a command does. */
export async function runCommand(command: Command, input: unknown, context: CommandContext) {
  return command.execute(validateInput(command.input, input), context);
}
