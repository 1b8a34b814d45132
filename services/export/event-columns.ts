import type avro from 'avsc';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import type { KnownSchema } from '../../platform/events/schema-catalog.js';
import { isoTimeFormatter } from '../../platform/time/iso-time.js';
import type { Cell, ColumnKind, ExportColumn } from './columns.js';
import { REDACTED_NOTE, redactionOf } from './redacted-fields.js';

/** Where each row comes from in the log; named apart from event fields, which never start with `log_`. */
export const LOG_COLUMNS: readonly ExportColumn[] = [
  { name: 'log_topic', kind: 'text', nullable: false, doc: 'Topic, as named in schemas/topics.ts (without TOPIC_PREFIX).' },
  { name: 'log_partition', kind: 'integer', nullable: false, doc: 'Partition of the topic.' },
  { name: 'log_offset', kind: 'bigint', nullable: false, doc: 'Offset within the partition: (log_topic, log_partition, log_offset) names the event.' },
  { name: 'log_timestamp', kind: 'timestamp', nullable: false, doc: 'When the event was logged (Kafka: the message timestamp; embedded log: the append time).' },
  { name: 'log_key', kind: 'text', nullable: false, doc: 'Partition key: events of one key keep their order.' },
  { name: 'event_type', kind: 'text', nullable: false, doc: 'Avro record name of the event, e.g. PostbackReceived.' },
  { name: 'schema_id', kind: 'integer', nullable: false, doc: 'Registry id of the schema the event was written with (it is read in this build\'s schema of the same name).' },
];

export interface EventTable {
  columns: ExportColumn[];
  /** The event types the table has rows for, as in schemas/. */
  types: KnownSchema[];
  /** The row of an event; an event of another type is an error (the caller filters by type first). */
  row(event: LoggedEvent): Cell[];
}

/** One event field's column and how its value becomes a cell (redacted first when it holds secrets). */
interface ExportedField {
  position: number;
  name: string;
  convert: (value: unknown) => Cell;
  redact?: (value: unknown) => unknown;
}

interface FieldShape {
  kind: ColumnKind;
  nullable: boolean;
  convert(value: unknown): Cell;
}

const same = (value: unknown) => value;

/**
 * The columns of events of `types` (one type, or every type of a topic): the log columns, then
 * each event field once, in the order the schemas declare them. A field several types share is
 * one column; when they disagree on its kind the column is json. In a table of several types
 * every field column is nullable (a row of a type without the field has null there).
 */
export function eventTable(types: KnownSchema[]): EventTable {
  const columns: ExportColumn[] = [...LOG_COLUMNS];
  const index = new Map(columns.map((column, position) => [column.name, position]));
  const readers = new Map<string, ExportedField[]>();
  for (const schema of types) {
    const fields: ExportedField[] = [];
    const record = schema.avroType as avro.types.RecordType;
    for (const [at, field] of record.fields.entries()) {
      const declared = schema.schema.fields[at]!;
      if (LOG_COLUMNS.some((column) => column.name === field.name)) {
        throw new Error(`${schema.fullName} has a field ${field.name}, which is a log column name: rename the export's log columns first`);
      }
      const shape = fieldShape(field.type, declared.type);
      let position = index.get(field.name);
      if (position === undefined) {
        position = columns.length;
        index.set(field.name, position);
        columns.push({ name: field.name, kind: shape.kind, nullable: shape.nullable || types.length > 1, doc: declared.doc, eventTypes: [], avro: declared.type });
      }
      const column = columns[position]!;
      if (column.kind !== shape.kind) column.kind = 'json';
      column.eventTypes!.push(schema.schema.name);
      const redact = redactionOf(schema.schema.name, field.name);
      if (redact && !column.doc?.includes(REDACTED_NOTE)) column.doc = `${column.doc ?? ''} In ${schema.schema.name} events ${REDACTED_NOTE}.`.trim();
      fields.push({ position, name: field.name, convert: shape.convert, redact });
    }
    readers.set(schema.fullName, fields);
  }
  // One type: every row has every column, so the column does not list its types.
  if (types.length === 1) for (const column of columns) delete column.eventTypes;
  // A column made json by a disagreement keeps each type's values as they are.
  for (const fields of readers.values()) for (const field of fields) if (columns[field.position]!.kind === 'json') field.convert = same;

  const logTime = isoTimeFormatter();
  return {
    columns,
    types,
    row(event) {
      const fields = readers.get(event.type);
      if (!fields) throw new Error(`${event.type} at ${event.topic}:${event.partition}:${event.offset} is not a type of this export (${[...readers.keys()].join(', ')})`);
      const cells: Cell[] = new Array(columns.length).fill(null);
      cells[0] = event.topic;
      cells[1] = event.partition;
      cells[2] = event.offset;
      cells[3] = logTime(event.timestamp.getTime());
      cells[4] = event.key;
      cells[5] = event.type.slice(event.type.lastIndexOf('.') + 1);
      cells[6] = event.schemaId;
      for (const field of fields) {
        const value = event.value[field.name];
        cells[field.position] = value === null || value === undefined ? null : field.convert(field.redact ? field.redact(value) : value);
      }
      return cells;
    },
  };
}

/** How one Avro field becomes a column: its kind, whether it may be null, and its cells. */
function fieldShape(type: avro.Type, declared: unknown): FieldShape {
  if (type.typeName === 'union:unwrapped' || type.typeName === 'union:wrapped') {
    const branches = (type as avro.types.UnwrappedUnionType | avro.types.WrappedUnionType).types;
    const present = branches.filter((branch) => branch.typeName !== 'null');
    const nullable = present.length < branches.length;
    if (present.length === 1 && type.typeName === 'union:unwrapped') {
      const declaredBranch = Array.isArray(declared) ? declared.find((branch) => branch !== 'null') : undefined;
      return { ...fieldShape(present[0]!, declaredBranch), nullable };
    }
    return { kind: 'json', nullable, convert: same };
  }
  switch (type.typeName) {
    case 'string':
    case 'enum':
      return { kind: 'text', nullable: false, convert: same };
    case 'boolean':
      return { kind: 'boolean', nullable: false, convert: same };
    case 'int':
      return { kind: 'integer', nullable: false, convert: same };
    case 'long':
      return isTimestampMillis(declared)
        ? { kind: 'timestamp', nullable: false, convert: timestampCells() }
        : { kind: 'bigint', nullable: false, convert: (value) => String(value) };
    case 'float':
    case 'double':
      return { kind: 'double', nullable: false, convert: same };
    case 'bytes':
    case 'fixed':
      return { kind: 'text', nullable: false, convert: (value) => (value as Buffer).toString('base64') };
    default:
      // Records, arrays and maps: nested in ndjson, JSON text elsewhere.
      return { kind: 'json', nullable: type.typeName === 'null', convert: same };
  }
}

/** Cells of one timestamp-millis column (a formatter of its own keeps that column's day). */
function timestampCells(): (value: unknown) => Cell {
  const time = isoTimeFormatter();
  return (value) => time(Number(value));
}

function isTimestampMillis(declared: unknown): boolean {
  return typeof declared === 'object' && declared !== null && (declared as { logicalType?: string }).logicalType === 'timestamp-millis';
}
