import type { Static, TObject } from '@sinclair/typebox';
import type { Runtime } from '../../platform/runtime.js';

/**
 * One admin operation, declared once and exposed twice: as a CLI subcommand (flags from the
 * input schema) and as `POST /admin/commands/{name}` on the internal admin API. `execute`
 * validates what the schema cannot (references to other records, catalog ids), then appends
 * events; it never writes a read model.
 */
export interface AdminCommand<S extends TObject = TObject> {
  /** `noun:verb`, e.g. `developer:register`. */
  name: string;
  summary: string;
  /** Closed object schema; every property carries a `description` (shown by --help). */
  input: S;
  execute(input: Static<S>, context: AdminContext): Promise<Record<string, unknown>>;
}

export interface AdminContext {
  runtime: Runtime;
  now(): Date;
}

/** A rejected input: names the field (a JSON path like `targeting[0].geo.include[1].location_id`). */
export class AdminInputError extends Error {
  constructor(readonly field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'AdminInputError';
  }
}

/** The input refers to a record that does not exist (exit code 3, HTTP 404). */
export class AdminNotFoundError extends Error {
  constructor(readonly field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'AdminNotFoundError';
  }
}

/** Keeps the input typed inside the definition and erases it for the command list. */
export function defineCommand<S extends TObject>(command: AdminCommand<S>): AdminCommand {
  return command as unknown as AdminCommand;
}
