import type { Db } from '../../platform/db/db.js';
import { ReplayInputError } from '../../platform/projection/point-in-time.js';
import { REPLAY_SCHEMA_NAME, dropSchemas, replaySchemas } from '../../platform/projection/replay-schema.js';
import { hasSqlState, SQLSTATE } from '../../platform/db/sqlstate.js';

/** `--drop a,b` as names; the option is `drop` in messages. */
export function dropNamesOf(text: string): string[] {
  const names = text.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) throw new ReplayInputError('drop', 'names no schema; give the replay_… schemas to drop (npm run replay -- --kept lists them)');
  const odd = names.find((name) => !REPLAY_SCHEMA_NAME.test(name));
  if (odd !== undefined) throw new ReplayInputError('drop', `"${odd}" is not a schema a replay keeps (replay_<time>, as the replay printed it); nothing was dropped`);
  return [...new Set(names)];
}

/**
 * Drops schemas replays kept (a point-in-time rebuild, --keep, an interrupted replay), only those:
 * a name no replay kept, or one a replay is still writing, is refused before anything is dropped.
 */
export async function dropKeptSchemas(db: Db, names: string[]): Promise<string[]> {
  const { kept, running } = await replaySchemas(db);
  const underWay = names.filter((name) => running.includes(name));
  if (underWay.length > 0) {
    throw new ReplayInputError('drop', `${underWay.join(', ')}: a replay is still writing ${underWay.length === 1 ? 'it' : 'them'}; drop ${underWay.length === 1 ? 'it' : 'them'} once that replay has finished (or a minute after it was stopped); nothing was dropped`);
  }
  const unknown = names.filter((name) => !kept.includes(name));
  if (unknown.length > 0) {
    throw new ReplayInputError('drop', `${unknown.join(', ')}: no such kept replay schema (${kept.length === 0 ? 'none is kept' : `kept: ${kept.join(', ')}`}); nothing was dropped`);
  }
  const dropped: string[] = [];
  for (const name of names) {
    try {
      await db.transaction(async (tx) => {
        // A query reading its tables holds them: said in seconds, not after the statement timeout.
        await tx.query(`SET LOCAL lock_timeout = ${DROP_LOCK_WAIT_MS}`);
        await dropSchemas(tx, [name]);
      });
    } catch (error) {
      if (hasSqlState(error, SQLSTATE.lockNotAvailable)) throw new SchemaInUseError(name, dropped);
      throw error;
    }
    dropped.push(name);
  }
  return names;
}

/** How long dropping a kept schema waits for its tables. */
const DROP_LOCK_WAIT_MS = 5_000;

/** A kept schema a query is reading: not dropped (those named before it were). */
export class SchemaInUseError extends Error {
  constructor(readonly schema: string, readonly dropped: string[]) {
    super(
      `${schema}: a query is using its tables (waited ${DROP_LOCK_WAIT_MS / 1000} s); drop it once that query has finished` +
        (dropped.length > 0 ? ` (dropped before it: ${dropped.join(', ')})` : ' (nothing was dropped)'),
    );
    this.name = 'SchemaInUseError';
  }
}

/** Kept schemas as the CLI and the admin API list them: the names, and what each holds (null: it does not say). */
export interface KeptSchemas {
  names: string[];
  about: Record<string, string | null>;
}

export const keptSchemasOf = (described: { schema: string; about: string | null }[]): KeptSchemas => ({
  names: described.map(({ schema }) => schema),
  about: Object.fromEntries(described.map(({ schema, about }) => [schema, about])),
});
