import type { CommanderError } from 'commander';
import { ExitCode } from '../startup.js';

/**
 * What a command prints after commander's parse error (an unknown flag or command, a flag without
 * its value, an argument too many), for `.showHelpAfterError()`: where the usage is, one line,
 * rather than all of it under the error.
 */
export const helpPointer = (command: string) => `(${command} --help shows the usage)`;

/** For `.exitOverride()`: a parse error is invalid input, exit 2 (commander's own is 1); --help exits 0. */
export const exitOnParseError = (error: CommanderError): never => process.exit(error.exitCode === 0 ? ExitCode.ok : ExitCode.invalidInput);
