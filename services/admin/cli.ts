import { Command as Program, Option } from 'commander';
import { onceOnly } from '../../platform/cli/once-only.js';
import { exitOnParseError, helpPointer } from '../../platform/cli/parse-errors.js';
import { readFileSync } from 'node:fs';
import { CommandInputError, CommandNotFoundError, CommandUnavailableError, type Command } from '../../commands/command.js';
import { adminCommands } from '../../commands/index.js';
import { validateInput } from '../../commands/validate.js';
import { loadConfig } from '../../platform/config/config.js';
import { SettingError, configurationProblem } from '../../platform/config/settings.js';
import { DataDirBusyError } from '../../platform/data-dir/ownership.js';
import { ReadModelsBehindError } from '../../platform/projection/catch-up.js';
import { holdsEmbeddedDatabase } from '../../platform/runtime.js';
import { BackendUnavailableError, ExitCode } from '../../platform/startup.js';
import { flagName, flagSyntax, inputFromFlags, parseJson } from './cli-options.js';
import { CommandFailedError, runAdminCommandAnywhere } from './command-gateway.js';
import { reportUnexpectedFailures } from '../../platform/cli/unexpected-failure.js';

/** Exit codes: 0 done, 1 unexpected failure, 2 invalid input, 3 a referenced record is missing, 4 a backend is unavailable. */
export { ExitCode };

function exitCodeFor(error: unknown): number {
  if (error instanceof CommandInputError || error instanceof SyntaxError || error instanceof SettingError) return ExitCode.invalidInput;
  if (error instanceof CommandNotFoundError) return ExitCode.notFound;
  if (error instanceof CommandFailedError) return error.exitCode;
  if (error instanceof DataDirBusyError || error instanceof BackendUnavailableError || error instanceof ReadModelsBehindError || error instanceof CommandUnavailableError) return ExitCode.unavailable;
  return ExitCode.failure;
}

function describe(error: unknown, command: Command): string {
  if (error instanceof DataDirBusyError) return `${error.message}; retry when it has finished`;
  if (error instanceof BackendUnavailableError) return `cannot run ${command.name}: ${error.message}`;
  if (error instanceof SettingError) return configurationProblem(error);
  // A field of the input is given on the command line as its flag: say which (email → --email).
  if (error instanceof CommandInputError && Object.hasOwn(command.input.properties, error.field)) return `${error.message} (${flagName(error.field)})`;
  return (error as Error).message;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** What the shell or a file passed as bytes that are not UTF-8 arrives as U+FFFD: refused, not stored as it. */
const REPLACEMENT = '\uFFFD';
const notUtf8 = (flag: string) => new CommandInputError(flag, 'is not UTF-8 text (bytes that are not UTF-8 would be stored as U+FFFD); send UTF-8');

/** The command's input from exactly one of --input-file, --input or the field flags. */
function inputOf(command: Command, options: Record<string, string | undefined>, flags: Record<string, string | undefined>): unknown {
  const given = Object.entries(flags).filter(([, value]) => value !== undefined).map(([key]) => flagName(key));
  const ways = [options.inputFile !== undefined && '--input-file', options.input !== undefined && '--input', given.length > 0 && given.join(', ')].filter(Boolean);
  if (ways.length > 1) throw new CommandInputError('input', `given more than one way (${ways.join('; ')}): use --input-file, --input or the field flags`);
  if (options.inputFile !== undefined) {
    let text: string;
    try {
      const bytes = readFileSync(options.inputFile);
      try {
        text = UTF8.decode(bytes);
      } catch {
        throw notUtf8('--input-file');
      }
    } catch (error) {
      if (error instanceof CommandInputError) throw error;
      throw new CommandInputError('--input-file', `cannot read ${options.inputFile} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    return parseJson('--input-file', text);
  }
  if (options.input !== undefined) {
    if (options.input.includes(REPLACEMENT)) throw notUtf8('--input');
    return parseJson('--input', options.input);
  }
  const mangled = Object.entries(flags).find(([, value]) => value?.includes(REPLACEMENT));
  if (mangled) throw notUtf8(flagName(mangled[0]));
  return inputFromFlags(command.input, flags);
}

function addCommand(program: Program, command: Command) {
  const sub = program.command(command.name).description(command.summary).showHelpAfterError(helpPointer(`npm run admin -- ${command.name}`));
  for (const [property, schema] of Object.entries(command.input.properties)) {
    const required = command.input.required?.includes(property) ?? false;
    sub.addOption(onceOnly(new Option(flagSyntax(property, schema), `${schema.description ?? property}${required ? ' (required)' : ''}`)));
  }
  sub.addOption(onceOnly(new Option('--input <json>', 'the whole input as one JSON object (instead of flags)')));
  sub.addOption(onceOnly(new Option('--input-file <path>', 'read the whole input from a JSON file')));
  sub.action(async (options: Record<string, string | undefined>) => {
    try {
      const flags = Object.fromEntries(Object.keys(command.input.properties).map((key) => [key, options[key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())]]));
      const input = inputOf(command, options, flags);
      // Invalid input fails before any backend is opened.
      const valid = validateInput(command.input, input);
      const config = loadConfig();
      // A mistyped or forgotten DATA_DIR would otherwise put the write in a new database unnoticed.
      const creating = config.embedded.database && !holdsEmbeddedDatabase(config.dataDir);
      const result = await runAdminCommandAnywhere(config, command, valid);
      if (creating) process.stderr.write(`note: DATA_DIR ${config.dataDir} held no database: this command created one there; if the service's data is in another folder, set DATA_DIR to it\n`);
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      process.exitCode = ExitCode.ok;
    } catch (error) {
      process.stderr.write(`error: ${describe(error, command)}\n`);
      process.exitCode = exitCodeFor(error);
    }
    // A backend client left retrying in the background must not keep the command alive.
    process.exit(process.exitCode);
  });
}

const ADMIN_HELP = '(npm run admin -- --help lists the commands; replays and exports are not among them: npm run replay, npm run export)';

export function buildCli(): Program {
  const program = new Program('admin')
    .description('Offer ledger administration: every command validates its input; those that change something append events (offer:explain-targeting only reads).')
    // Replays and exports append nothing, so they are tools of their own (said after "unknown command" too).
    .addHelpText('after', '\nReplays and exports are not admin commands: npm run replay -- --help, npm run export -- --help.')
    .showHelpAfterError(ADMIN_HELP)
    .exitOverride(exitOnParseError);
  for (const command of adminCommands) addCommand(program, command);
  return program;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  reportUnexpectedFailures();
  await buildCli().parseAsync(process.argv);
}
