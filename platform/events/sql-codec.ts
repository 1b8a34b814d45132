import avro from 'avsc';
import type { Db } from '../db/db.js';
import { subjectFor, type DecodedEvent, type EventCodec } from './codec.js';
import { encodeChecked, type KnownSchema } from './schema-catalog.js';
import { fromWireFormat, toWireFormat } from './wire-format.js';

/**
 * The embedded default's schema registry: a table of (subject, schema) with integer ids, so the
 * embedded log stores exactly the bytes Kafka would carry.
 */
export function sqlCodec(db: Db, schemas: Map<string, KnownSchema>): EventCodec {
  const idsBySubject = new Map<string, number>();
  const readers = new Map<number, { type: string; avroType: avro.Type }>();

  async function schemaIdFor(physicalTopic: string, schema: KnownSchema): Promise<number> {
    const subject = subjectFor(physicalTopic, schema.fullName);
    const cached = idsBySubject.get(subject);
    if (cached !== undefined) return cached;
    const { rows } = await db.query<{ id: number }>(
      `INSERT INTO embedded_schemas (subject, schema_text) VALUES ($1, $2)
       ON CONFLICT (subject, schema_text) DO UPDATE SET subject = EXCLUDED.subject
       RETURNING id`,
      [subject, schema.text],
    );
    const id = rows[0]!.id;
    idsBySubject.set(subject, id);
    return id;
  }

  async function readerFor(schemaId: number) {
    const cached = readers.get(schemaId);
    if (cached) return cached;
    const { rows } = await db.query<{ schema_text: string }>('SELECT schema_text FROM embedded_schemas WHERE id = $1', [schemaId]);
    if (!rows[0]) throw new Error(`schema id ${schemaId} is not in the embedded registry`);
    const avroType = avro.Type.forSchema(JSON.parse(rows[0].schema_text) as avro.Schema);
    const reader = { type: avroType.name ?? 'unknown', avroType };
    readers.set(schemaId, reader);
    return reader;
  }

  return {
    async encode(physicalTopic, type, value) {
      const schema = schemas.get(type);
      if (!schema) throw new Error(`unknown event type ${type}: no schema in schemas/`);
      return toWireFormat(await schemaIdFor(physicalTopic, schema), encodeChecked(schema, value));
    },
    async decode(message): Promise<DecodedEvent> {
      const { schemaId, body } = fromWireFormat(message);
      const reader = await readerFor(schemaId);
      return { type: reader.type, value: reader.avroType.fromBuffer(body) as Record<string, unknown>, schemaId };
    },
  };
}
