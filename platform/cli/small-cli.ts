import { parseArgs } from 'node:util';
import { helpPointer } from './parse-errors.js';

type StringOptions = Record<string, { type: 'string' } | { type: 'boolean' }>;

/** A flag's value: a string for one taking a value, true for a switch given. */
type ValueOf<T> = T extends { type: 'boolean' } ? boolean : string;

export interface SmallCli<O extends StringOptions> {
  /** What --help prints: the command line and a few lines on what it does. */
  usage: string;
  /** Its flags: taking a value (`--out path`) or switches (`--allow-shrink`). */
  options?: O;
  /** How many plain arguments it takes at most. */
  positionals?: number;
}

/**
 * The arguments of a command with few of them (node:util's parseArgs): `--help` or `-h` prints the
 * usage and exits 0 before anything is opened, so it answers while the service holds DATA_DIR;
 * an unknown flag, a flag without its value, an empty value or argument (which a path would take for
 * the current folder) or an argument too many exits 2 saying so in one line,
 * with a pointer to --help (as the commands on commander do).
 */
export function smallCliArgs<O extends StringOptions>(cli: SmallCli<O>, args = process.argv.slice(2)): { values: { [K in keyof O]?: ValueOf<O[K]> }; positionals: string[] } {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${cli.usage.trim()}\n`);
    process.exit(0);
  }
  try {
    const parsed = parseArgs({ args, options: cli.options ?? {}, allowPositionals: true, strict: true });
    const most = cli.positionals ?? 0;
    if (parsed.positionals.length > most) {
      throw new Error(most === 0 ? `takes no arguments (got ${JSON.stringify(parsed.positionals[0])})` : `takes at most ${most} argument${most === 1 ? '' : 's'} (got ${parsed.positionals.length})`);
    }
    // An empty path resolves to the folder the command runs in: refused as what it is, not as a folder.
    if (parsed.positionals.includes('')) throw new Error('an argument is empty (""): give the file name, or leave the argument out');
    const emptyFlag = Object.entries(parsed.values).find(([, value]) => value === '');
    if (emptyFlag) throw new Error(`--${emptyFlag[0]}: is empty (""); give a value, or leave the flag out`);
    return { values: parsed.values as { [K in keyof O]?: ValueOf<O[K]> }, positionals: parsed.positionals };
  } catch (error) {
    process.stderr.write(`error: ${parseErrorMessage(error as Error & { code?: string })}\n${helpPointer(`${commandOf(cli.usage)} --`)}\n`);
    process.exit(2);
  }
}

/**
 * node:util's message, in commander's words: its advice on an unknown option (put it after `--`)
 * is wrong under `npm run`, which takes that `--` for itself.
 */
function parseErrorMessage(error: Error & { code?: string }): string {
  const option = /'(-[^']*)'/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) return `unknown option '${option}'`;
  return error.message.charAt(0).toLowerCase() + error.message.slice(1);
}

/** The command as the usage's first line gives it (`usage: npm run migrate …` → `npm run migrate`). */
const commandOf = (usage: string) => /^usage: (npm (?:start|run [\w:-]+))/.exec(usage.trim())?.[1] ?? 'the command';
