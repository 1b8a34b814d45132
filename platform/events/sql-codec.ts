import avro from 'avsc';
import type { Db } from '../db/db.js';
import { schemaOfSubject, subjectFor, type DecodedEvent, type EventCodec } from './codec.js';
import { promiseCache } from './promise-cache.js';
import { encodeChecked, type KnownSchema } from './schema-catalog.js';
import { fromWireFormat, toWireFormat } from './wire-format.js';

/**
 * The embedded default's schema registry: a table of (subject, schema) with integer ids, so the
 * embedded log stores exactly the bytes Kafka would carry.
 */
export function sqlCodec(db: Db, schemas: Map<string, KnownSchema>): EventCodec {
  const schemaIdFor = promiseCache(async (subject: string) => {
    const schema = schemaOfSubject(schemas, subject);
    const { rows } = await db.query<{ id: number }>(
      `INSERT INTO embedded_schemas (subject, schema_text) VALUES ($1, $2)
       ON CONFLICT (subject, schema_text) DO UPDATE SET subject = EXCLUDED.subject
       RETURNING id`,
      [subject, schema.text],
    );
    return rows[0]!.id;
  });

  const readerFor = promiseCache(async (schemaId: number) => {
    const { rows } = await db.query<{ schema_text: string }>('SELECT schema_text FROM embedded_schemas WHERE id = $1', [schemaId]);
    if (!rows[0]) throw new Error(`schema id ${schemaId} is not in the embedded registry`);
    const avroType = avro.Type.forSchema(JSON.parse(rows[0].schema_text) as avro.Schema);
    return { type: avroType.name ?? 'unknown', avroType };
  });

  return {
    async encode(physicalTopic, type, value) {
      const schema = schemas.get(type);
      if (!schema) throw new Error(`unknown event type ${type}: no schema in schemas/`);
      const body = encodeChecked(schema, value);
      return toWireFormat(await schemaIdFor(subjectFor(physicalTopic, type)), body);
    },
    async decode(message): Promise<DecodedEvent> {
      const { schemaId, body } = fromWireFormat(message);
      const reader = await readerFor(schemaId);
      return { type: reader.type, value: reader.avroType.fromBuffer(body) as Record<string, unknown>, schemaId };
    },
  };
}
