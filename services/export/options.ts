import { existsSync, statSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import { LogBoundError, type LogBound, type TopicPartitionOffset } from '../../platform/events/event-log.js';
import { REPLAY_SCHEMA_NAME } from '../../platform/projection/replay-schema.js';
import { parseRfc3339 } from '../../platform/time/rfc3339.js';
import { eventTopic, type EventTypeName } from '../../schemas/generated/events.js';
import { TOPICS, type TopicName } from '../../schemas/topics.js';
import type { EventExportRequest } from './export-events.js';
import { READ_MODELS, type ReadModelExportRequest, type ReadModelName } from './export-read-model.js';
import { FORMATS, type ExportFormat } from './schema-document.js';

/** A flag that is missing, malformed or contradicts another; the CLI exits 2 naming it. */
export class ExportInputError extends Error {
  constructor(readonly flag: string, detail: string) {
    super(`${flag}: ${detail}`);
    this.name = 'ExportInputError';
  }
}

/**
 * The flag a failure is about and its message (which starts with the flag), for an export's own
 * checks and for a bound the log does not have; undefined for any other failure.
 */
export function flagFailure(error: unknown): { flag: string; message: string } | undefined {
  if (error instanceof ExportInputError) return { flag: error.flag, message: error.message };
  if (error instanceof LogBoundError) return { flag: `--${error.bound}`, message: `--${error.bound}: ${error.message}` };
  return undefined;
}

/** The flags as commander hands them over (all text). */
export interface ExportFlags {
  topic?: string;
  readModel?: string;
  schema?: string;
  from?: string;
  to?: string;
  type?: string;
  format?: string;
  out?: string;
}

export type ParsedExport =
  | { kind: 'events'; request: Omit<EventExportRequest, 'topicPrefix'> }
  | { kind: 'read_model'; request: ReadModelExportRequest };

const EXTENSIONS: Record<string, ExportFormat> = { '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.csv': 'csv', '.parquet': 'parquet' };
/** Looks like an RFC 3339 time (parseRfc3339 then says whether it names an instant). */
const TIME_LIKE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/;
const POSITION = /^([A-Za-z0-9._-]+):(\d+):(\d+)$/;

/** Checks every flag before any backend is opened; throws ExportInputError naming the first wrong one. */
export function parseExportFlags(flags: ExportFlags, now: Date = new Date()): ParsedExport {
  if (flags.topic !== undefined && flags.readModel !== undefined) throw new ExportInputError('--read-model', 'give either --topic (events) or --read-model (a table), not both');
  if (flags.topic === undefined && flags.readModel === undefined) {
    throw new ExportInputError('--topic', `missing: give --topic <${TOPICS.map((t) => t.topic).join('|')}> for events or --read-model <${READ_MODELS.join('|')}> for a table`);
  }
  const out = outPath(flags.out);
  const format = formatOf(flags.format, out);
  if (flags.schema !== undefined && flags.readModel === undefined) throw new ExportInputError('--schema', 'applies to --read-model exports only: the schema a replay kept the table in');
  if (flags.schema !== undefined && !REPLAY_SCHEMA_NAME.test(flags.schema)) {
    throw new ExportInputError('--schema', `"${flags.schema}" is not a schema a replay keeps: replay_<time> as the replay printed it (npm run replay -- --kept lists them)`);
  }
  if (flags.readModel !== undefined) {
    for (const flag of ['from', 'to', 'type'] as const) {
      if (flags[flag] !== undefined) throw new ExportInputError(`--${flag}`, 'applies to --topic exports only; a --read-model export is the whole table as of its projection\'s positions');
    }
    if (!(READ_MODELS as readonly string[]).includes(flags.readModel)) throw new ExportInputError('--read-model', `unknown read model "${flags.readModel}": one of ${READ_MODELS.join(', ')}`);
    return { kind: 'read_model', request: { readModel: flags.readModel as ReadModelName, format, out, ...(flags.schema !== undefined ? { schema: flags.schema } : {}) } };
  }
  const topic = topicOf(flags.topic!);
  const from = flags.from === undefined ? undefined : boundOf('--from', flags.from, topic);
  const to = flags.to === undefined ? undefined : boundOf('--to', flags.to, topic);
  if (to && 'time' in to) notAhead(to.time, flags.to!, now);
  if (from && to) endAfterStart(from, to, flags);
  return {
    kind: 'events',
    request: { topic, from, to, fromText: flags.from, toText: flags.to, type: flags.type === undefined ? undefined : typeOf(flags.type, topic), format, out },
  };
}

/** How far past this machine's clock a --to time may be (another machine's clock, a script's rounding), as replay's --as-of. */
const FUTURE_TOLERANCE_MS = 60_000;

/**
 * A --to still to come would give the log as it ends now, in a file whose schema says it runs to
 * that time (`source.to`): a month exported before it is over, taken later for the whole month.
 */
function notAhead(time: Date, text: string, now: Date) {
  if (time.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) {
    throw new ExportInputError('--to', `${text} is in the future (now is ${now.toISOString()}): the file would end where the log ends now; export once that time has passed, or leave --to out for everything logged so far`);
  }
}

/** Bounds of one kind that can be compared before the log is read: the end must not come before the start. */
function endAfterStart(from: LogBound, to: LogBound, flags: ExportFlags) {
  if ('time' in from && 'time' in to && to.time.getTime() < from.time.getTime()) {
    throw new ExportInputError('--to', `${flags.to} is before --from ${flags.from}`);
  }
  if ('positions' in from && 'positions' in to) {
    for (const end of to.positions) {
      const start = from.positions.find((position) => position.partition === end.partition);
      if (start && BigInt(end.offset) < BigInt(start.offset)) {
        throw new ExportInputError('--to', `${end.topic}:${end.partition}:${end.offset} is before --from ${start.topic}:${start.partition}:${start.offset}; the end of a partition comes at or after its start`);
      }
    }
  }
}

function outPath(out: string | undefined): string {
  if (out === undefined || out === '') throw new ExportInputError('--out', 'missing: the file to write, e.g. --out postbacks.parquet');
  if (existsSync(out) && statSync(out).isDirectory()) throw new ExportInputError('--out', `${out} is a folder; name the file to write`);
  if (!existsSync(dirname(out))) throw new ExportInputError('--out', `folder ${dirname(out)} does not exist; create it first`);
  if (!statSync(dirname(out)).isDirectory()) throw new ExportInputError('--out', `${dirname(out)} is a file, not a folder; name a file in a folder`);
  return out;
}

const extensionsOf = (format: ExportFormat) =>
  Object.entries(EXTENSIONS)
    .filter(([, named]) => named === format)
    .map(([extension]) => extension)
    .join(' or ');

function formatOf(format: string | undefined, out: string): ExportFormat {
  if (format === undefined) {
    const inferred = EXTENSIONS[extname(out).toLowerCase()];
    if (!inferred) throw new ExportInputError('--format', `missing, and ${out} does not end in .ndjson, .jsonl, .csv or .parquet: give --format ${FORMATS.join('|')}`);
    return inferred;
  }
  if (!(FORMATS as readonly string[]).includes(format)) throw new ExportInputError('--format', `unknown format "${format}": one of ${FORMATS.join(', ')}`);
  // A file named for another format would be opened as that one (DuckDB, a spreadsheet) and fail.
  const named = EXTENSIONS[extname(out).toLowerCase()];
  if (named && named !== format) throw new ExportInputError('--format', `${format}, but ${out} is named for ${named}: give --format ${named}, or end --out in ${extensionsOf(format as ExportFormat)}`);
  return format as ExportFormat;
}

function topicOf(topic: string): TopicName {
  const known = TOPICS.map((design) => design.topic);
  if (!(known as string[]).includes(topic)) throw new ExportInputError('--topic', `unknown topic "${topic}": one of ${known.join(', ')}`);
  return topic as TopicName;
}

/** The topic's event types by full name; `name` may be the record's short name or its full name. */
function typeOf(name: string, topic: TopicName): string {
  const types = (Object.keys(eventTopic) as EventTypeName[]).filter((type) => eventTopic[type] === topic);
  const found = types.find((type) => type === name || type.slice(type.lastIndexOf('.') + 1) === name);
  if (!found) throw new ExportInputError('--type', `topic ${topic} has no event type "${name}": one of ${types.map((type) => type.slice(type.lastIndexOf('.') + 1)).join(', ')}`);
  return found;
}

/** An RFC 3339 time (to the millisecond), or log positions `topic:partition:offset,…` of the exported topic. */
function boundOf(flag: '--from' | '--to', text: string, topic: TopicName): LogBound {
  // Spaces around a time are refused, as --as-of refuses them, but as a time: read as positions
  // (whose items are trimmed), the message showed a valid time as neither a time nor a position.
  if (TIME_LIKE.test(text.trim())) {
    const time = parseRfc3339(text);
    const shown = text.trim() === text ? text : JSON.stringify(text);
    if (!time) throw new ExportInputError(flag, `${shown} is not a valid time: give an RFC 3339 time with its offset and nothing around it, e.g. 2026-11-01T00:00:00Z`);
    return { time };
  }
  const positions: TopicPartitionOffset[] = [];
  for (const part of text.split(',').map((item) => item.trim())) {
    const match = POSITION.exec(part);
    if (!match) {
      throw new ExportInputError(flag, `"${part}" is neither an RFC 3339 time (2026-11-01T00:00:00Z) nor a log position (${topic}:0:1500,${topic}:1:1480)`);
    }
    if (match[1] !== topic) throw new ExportInputError(flag, `${part} is a position of topic ${match[1]}, not of the exported topic ${topic}`);
    positions.push({ topic, partition: Number(match[2]), offset: BigInt(match[3]!).toString() });
  }
  return { positions };
}
