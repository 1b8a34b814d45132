import type { PartitionSpan, TopicPartitionOffset } from '../../platform/events/event-log.js';
import { PARQUET_TYPES, type ExportColumn } from './columns.js';

export const FORMATS = ['ndjson', 'csv', 'parquet'] as const;
export type ExportFormat = (typeof FORMATS)[number];

/** Events of one topic, as asked and as read. */
export interface EventSource {
  kind: 'events';
  topic: string;
  /** The flags as given (absent: the start, the end, every type). */
  from: string | null;
  to: string | null;
  type: string | null;
  /** The offsets read per partition (from inclusive, to exclusive), fixed when the export started. */
  spans: PartitionSpan[];
  /** Rows keep events whose log_timestamp is in [from, to) when the bounds are times. */
  time_filter: { from: string | null; to: string | null };
  /** The Avro schema of each event type (this build's, in whose shape events are read) and its registry subject. */
  avro: { type: string; subject: string; schema: unknown }[];
}

/** A read model's table, as of its projection's applied positions. */
export interface ReadModelSource {
  kind: 'read_model';
  read_model: string;
  description: string;
  projection: string;
  /** The schema a replay kept the table in (`--schema`), when it is not the live read model. */
  replay_schema?: string;
  /** What that replay kept it as (`npm run replay -- --kept`): the `--as-of` time or the positions it was rebuilt to, and when. */
  replay_about?: string | null;
  /** Everything below these offsets is in the exported rows (one snapshot with them). */
  positions: TopicPartitionOffset[];
  order_by: string[];
}

/**
 * What an export file holds: written beside CSV and ndjson files (`FILE.schema.json`) and into a
 * Parquet file's key-value metadata (`offerledger.export`).
 */
export interface SchemaDocument {
  about: 'offer-ledger export, version 1';
  file: string;
  format: ExportFormat;
  rows: number;
  exported_at: string;
  source: EventSource | ReadModelSource;
  columns: {
    name: string;
    type: ExportColumn['kind'];
    parquet_type: string;
    nullable: boolean;
    doc?: string;
    event_types?: string[];
    avro?: unknown;
  }[];
  conventions: string[];
}

export const CONVENTIONS = [
  'One row per event (or table row); columns in this order, the same in every format.',
  'timestamp columns: RFC 3339 text in UTC in CSV and ndjson, TIMESTAMPTZ in Parquet.',
  'bigint columns (offsets): numbers in ndjson, BIGINT in Parquet; decimal columns: exact decimal text (cast to DECIMAL to sum).',
  'json columns (nested records, arrays, maps): nested values in ndjson, JSON text in CSV, JSON in Parquet; timestamps inside them stay epoch milliseconds.',
  'null: null in ndjson, an empty unquoted CSV field (an empty string is ""), NULL in Parquet.',
];

export function documentColumns(columns: readonly ExportColumn[]): SchemaDocument['columns'] {
  return columns.map((column) => ({
    name: column.name,
    type: column.kind,
    parquet_type: PARQUET_TYPES[column.kind],
    nullable: column.nullable,
    ...(column.doc ? { doc: column.doc } : {}),
    ...(column.eventTypes ? { event_types: column.eventTypes } : {}),
    ...(column.avro !== undefined ? { avro: column.avro } : {}),
  }));
}
