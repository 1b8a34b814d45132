import type { Static, TObject } from '@sinclair/typebox';
import type { Runtime } from '../platform/runtime.js';
import type { TopicName } from '../schemas/topics.js';

/**
 * One admin operation, declared once: its closed input schema and `execute`, which checks what
 * the schema cannot (references to other records through the read models' queries, catalog ids),
 * builds its events and appends them (commands/append.ts); it never writes a read model. A few
 * only read and explain (offer:explain-targeting, `writes: []`), so operators find them beside the
 * writes they explain. The
 * admin ones are exposed twice: as a CLI subcommand (flags from the input schema) and as
 * `POST /admin/commands/{name}` on the internal admin API.
 */
export interface Command<S extends TObject = TObject> {
  /** `noun:verb`, e.g. `developer:register`. */
  name: string;
  summary: string;
  /** Closed object schema; every property carries a `description` (shown by --help). */
  input: S;
  /**
   * The topics whose read models `execute` checks against: a runner brings those (and no others)
   * up to the log's end first, so a lagging read model the command never reads cannot hold it up.
   */
  reads: readonly TopicName[];
  /** The topics it appends to: a runner waits for their read models before answering, so the caller reads its own write. */
  writes: readonly TopicName[];
  execute(input: Static<S>, context: CommandContext): Promise<Record<string, unknown>>;
}

export interface CommandContext {
  runtime: Runtime;
  now(): Date;
}

/** A rejected input: names the field (a JSON path like `targeting[0].geo.include[1].location_id`). */
export class CommandInputError extends Error {
  constructor(readonly field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'CommandInputError';
  }
}

/** The input refers to a record that does not exist (exit code 3, HTTP 404). */
export class CommandNotFoundError extends Error {
  constructor(readonly field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'CommandNotFoundError';
  }
}

/** Something the command needs is not there yet, e.g. the location catalog (HTTP 503 with `code`, exit code 4). */
export class CommandUnavailableError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'CommandUnavailableError';
  }
}

/** Keeps the input typed inside the definition and erases it for the command list. */
export function defineCommand<S extends TObject>(command: Command<S>): Command {
  return command as unknown as Command;
}
