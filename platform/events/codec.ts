import type { KnownSchema } from './schema-catalog.js';

/**
 * Turns event values into registry-tagged Avro bytes (Confluent wire format) and back. Subjects
 * follow TopicRecordNameStrategy: `<topic>-<full record name>`, so one topic carries many types.
 */
export interface DecodedEvent {
  type: string;
  value: Record<string, unknown>;
  schemaId: number;
}

export interface EventCodec {
  encode(physicalTopic: string, type: string, value: Record<string, unknown>): Promise<Buffer>;
  decode(message: Buffer): Promise<DecodedEvent>;
}

export const subjectFor = (physicalTopic: string, type: string) => `${physicalTopic}-${type}`;

/** The schema a subject names; Avro names never contain '-', so the type follows the last one. */
export function schemaOfSubject(schemas: Map<string, KnownSchema>, subject: string): KnownSchema {
  const schema = schemas.get(subject.slice(subject.lastIndexOf('-') + 1));
  if (!schema) throw new Error(`no schema in schemas/ for subject ${subject}`);
  return schema;
}
