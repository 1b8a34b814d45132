import type { AdminCommand, AdminContext } from './command.js';
import { validateInput } from './validate.js';

/** Validates, then executes: the one path both the CLI and the HTTP API take. */
export async function runAdminCommand(command: AdminCommand, input: unknown, context: AdminContext) {
  return command.execute(validateInput(command.input, input), context);
}
