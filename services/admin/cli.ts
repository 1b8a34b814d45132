import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { loadConfigOrExit } from '../../platform/config/config.js';
import { openRuntime } from '../../platform/runtime.js';
import { inputFromFlags, flagSyntax } from './cli-options.js';
import { AdminInputError, AdminNotFoundError, type AdminCommand } from './command.js';
import { adminCommands } from './commands/index.js';
import { validateInput } from './validate.js';

/** Exit codes: 0 done, 1 unexpected failure, 2 invalid input, 3 a referenced record is missing, 4 a backend is unavailable. */
export const ExitCode = { ok: 0, failure: 1, invalidInput: 2, notFound: 3, unavailable: 4 } as const;

function exitCodeFor(error: unknown): number {
  if (error instanceof AdminInputError) return ExitCode.invalidInput;
  if (error instanceof AdminNotFoundError) return ExitCode.notFound;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED' || /Connection|connect|ECONNREFUSED|broker/i.test(String((error as Error).message))) return ExitCode.unavailable;
  return ExitCode.failure;
}

function addCommand(program: Command, command: AdminCommand) {
  const sub = program.command(command.name).description(command.summary);
  for (const [property, schema] of Object.entries(command.input.properties)) {
    const required = command.input.required?.includes(property) ?? false;
    sub.addOption(new Option(flagSyntax(property, schema), `${schema.description ?? property}${required ? ' (required)' : ''}`));
  }
  sub.addOption(new Option('--input <json>', 'the whole input as one JSON object (instead of flags)'));
  sub.addOption(new Option('--input-file <path>', 'read the whole input from a JSON file'));
  sub.action(async (options: Record<string, string | undefined>) => {
    let runtime;
    try {
      const flags = Object.fromEntries(Object.keys(command.input.properties).map((key) => [key, options[key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())]]));
      const input = options.inputFile
        ? JSON.parse(readFileSync(options.inputFile, 'utf8'))
        : options.input
          ? JSON.parse(options.input)
          : inputFromFlags(command.input, flags);
      // Invalid input fails before any backend is opened.
      const valid = validateInput(command.input, input);
      runtime = await openRuntime(loadConfigOrExit());
      const result = await command.execute(valid, { runtime, now: () => new Date() });
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      process.exitCode = ExitCode.ok;
    } catch (error) {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exitCode = error instanceof SyntaxError ? ExitCode.invalidInput : exitCodeFor(error);
    } finally {
      await runtime?.close();
    }
  });
}

export function buildCli(): Command {
  const program = new Command('admin')
    .description('Offer ledger administration: every command validates its input and appends events.')
    .showHelpAfterError()
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : ExitCode.invalidInput));
  for (const command of adminCommands) addCommand(program, command);
  return program;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildCli().parseAsync(process.argv);
}
