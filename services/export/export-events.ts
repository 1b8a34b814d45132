import { subjectFor } from '../../platform/events/codec.js';
import type { EventLog, LogBound, LoggedEvent } from '../../platform/events/event-log.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import type { TopicName } from '../../schemas/topics.js';
import { eventTable } from './event-columns.js';
import { writeExportFile, type ExportResult } from './export-file.js';
import { silentProgress, type ExportProgress } from './progress.js';
import type { ExportFormat } from './schema-document.js';

export interface EventExportRequest {
  topic: TopicName;
  from?: LogBound;
  to?: LogBound;
  /** The bounds as given on the command line, for the file's documentation. */
  fromText?: string;
  toText?: string;
  /** Full Avro name of the one event type to export; absent: every type of the topic. */
  type?: string;
  format: ExportFormat;
  out: string;
  /** TOPIC_PREFIX, for the registry subjects in the file's documentation. */
  topicPrefix: string;
}

const timeOf = (bound: LogBound | undefined) => (bound && 'time' in bound ? bound.time.getTime() : undefined);
const isoOrNull = (time: number | undefined) => (time === undefined ? null : new Date(time).toISOString());

/**
 * Decoded events of one topic between two bounds into one file. The log is read by offsets;
 * bounds given as times are looked up as offsets and, since a producer's clock may step back, the
 * rows are also cut exactly by their timestamps: from inclusive, to exclusive.
 */
export async function exportEvents(eventLog: EventLog, request: EventExportRequest, progress: ExportProgress = silentProgress, signal?: AbortSignal): Promise<ExportResult> {
  const types = [...loadSchemaCatalog().values()].filter((schema) => schema.topic === request.topic && (!request.type || schema.fullName === request.type));
  const table = eventTable(types);
  const read = await eventLog.read(request.topic, { from: request.from, to: request.to });
  const after = timeOf(request.from);
  const before = timeOf(request.to);
  const wanted = (event: LoggedEvent) =>
    (!request.type || event.type === request.type) &&
    (after === undefined || event.timestamp.getTime() >= after) &&
    (before === undefined || event.timestamp.getTime() < before);
  const file = {
    format: request.format,
    out: request.out,
    columns: table.columns,
    progress,
    what: `${request.topic} → ${request.format}`,
    total: read.spans.reduce((sum, span) => sum + Number(BigInt(span.to) - BigInt(span.from)), 0),
    signal,
  };
  return writeExportFile(
    file,
    (write) => read.forEach((batch) => write(batch.events.filter(wanted).map((event) => table.row(event)), batch.events.length)),
    () => ({
      kind: 'events',
      topic: request.topic,
      from: request.fromText ?? null,
      to: request.toText ?? null,
      type: request.type ?? null,
      spans: read.spans,
      time_filter: { from: isoOrNull(after), to: isoOrNull(before) },
      avro: types.map((schema) => ({ type: schema.fullName, subject: subjectFor(`${request.topicPrefix}${request.topic}`, schema.fullName), schema: schema.schema })),
    }),
  );
}
