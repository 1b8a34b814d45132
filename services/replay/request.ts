import { Type, type Static, type TObject } from '@sinclair/typebox';
import { validateInput } from '../../commands/validate.js';
import { CommandInputError } from '../../commands/command.js';
import { parseAsOf, parseUntil, ReplayInputError } from '../../platform/projection/point-in-time.js';
import type { ReplayOptions } from '../../platform/projection/replay.js';
import { projections as everyProjection } from '../projector/projectors.js';

/** Most differing keys a report lists per table. */
export const MAX_KEYS = 1000;

/** What a replay is asked to do: the CLI's flags and the admin API's body. */
export const ReplayRequest = Type.Object(
  {
    projections: Type.Optional(Type.Array(Type.String(), { description: 'Read models to rebuild (projection names, at least one); absent: every one.' })),
    as_of: Type.Optional(Type.String({ description: 'Rebuild as the read models were at this RFC 3339 time (events logged at or before it).' })),
    until: Type.Optional(Type.String({ description: 'Rebuild up to these log positions: topic:partition:offset,… (events below each offset).' })),
    swap: Type.Optional(Type.Boolean({ description: 'Make the rebuilt read models live.' })),
    keep: Type.Optional(Type.Boolean({ description: 'Keep the replay schemas for queries.' })),
    keys: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_KEYS, description: 'Differing keys shown per table (default 10).' })),
  },
  { additionalProperties: false },
);
export type ReplayRequest = Static<typeof ReplayRequest>;

/**
 * The replay options a request stands for, or ReplayInputError naming the option at fault.
 * Positions in the log (is that offset past the end?) are checked when the replay starts.
 */
export function resolveReplayRequest(input: unknown): Omit<ReplayOptions, 'onProgress'> {
  const request = validated(ReplayRequest, input);
  const byName = new Map(everyProjection.map((projection) => [projection.name, projection]));
  // An empty list names nothing; taking it as every read model would rebuild (and swap) them all unasked.
  if (request.projections?.length === 0) throw new ReplayInputError('projections', 'names no read model; give names, or leave projections out for every one');
  const names = request.projections ?? [];
  for (const name of names) {
    if (!byName.has(name)) throw new ReplayInputError('projections', `no read model named ${JSON.stringify(name)} (known: ${[...byName.keys()].join(', ')})`);
  }
  if (request.as_of !== undefined && request.until !== undefined) throw new ReplayInputError('until', 'give a time or log positions, not both');
  const pointInTime = request.as_of !== undefined || request.until !== undefined;
  if (request.swap && pointInTime) {
    throw new ReplayInputError('swap', 'a point-in-time rebuild is kept for queries, never made live');
  }
  return {
    projections: names.length > 0 ? [...new Set(names)].map((name) => byName.get(name)!) : everyProjection,
    explicit: names.length > 0,
    ...(pointInTime
      ? { pointInTime: request.as_of !== undefined ? { asOf: parseAsOf(request.as_of) } : { until: parseUntil(request.until!) } }
      : {}),
    swap: request.swap ?? false,
    keep: request.keep ?? false,
    keys: request.keys ?? 10,
  };
}

/** What POST /admin/replays/drop is asked: the kept schemas to drop, each named once. */
const DropRequest = Type.Object(
  { schemas: Type.Array(Type.String(), { minItems: 1, description: 'Kept replay schemas to drop (replay_…), each once.' }) },
  { additionalProperties: false },
);

/** The names a drop request gives, or ReplayInputError naming the field at fault (an unknown one, `schemas`). */
export function dropRequestNames(input: unknown): string[] {
  const request = validated(DropRequest, input, '; give the schemas to drop as a list of names: {"schemas": ["replay_…"]}');
  const repeated = request.schemas.find((name, index) => request.schemas.indexOf(name) !== index);
  if (repeated !== undefined) throw new ReplayInputError('schemas', `${repeated} is named twice; name each schema once`);
  return request.schemas;
}

/** `input` checked against `schema`, or ReplayInputError naming the field at fault (a list's, not its item's), `hint` after its message. */
function validated<S extends TObject>(schema: S, input: unknown, hint = ''): Static<S> {
  try {
    return validateInput(schema, input);
  } catch (error) {
    if (error instanceof CommandInputError) throw new ReplayInputError(error.field.replace(/\[\d+\]$/, ''), `${error.message.slice(error.field.length + 2)}${hint}`);
    throw error;
  }
}
