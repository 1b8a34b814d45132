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
