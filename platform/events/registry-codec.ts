import avro from 'avsc';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { schemaOfSubject, subjectFor, type DecodedEvent, type EventCodec } from './codec.js';
import { promiseCache } from './promise-cache.js';
import { fromWireFormat, toWireFormat } from './wire-format.js';
import { encodeChecked, type KnownSchema } from './schema-catalog.js';

/** Codec backed by a Confluent-compatible registry (Apicurio's ccompat API in our stack). */
export function registryCodec(registryUrl: string, schemas: Map<string, KnownSchema>): EventCodec {
  const registry = new SchemaRegistry({ host: registryUrl, clientId: 'offer-ledger' });

  const schemaIdFor = promiseCache(async (subject: string) => {
    const schema = schemaOfSubject(schemas, subject);
    return (await registry.register({ type: SchemaType.AVRO, schema: schema.text }, { subject })).id;
  });

  const readerFor = promiseCache(async (schemaId: number) => {
    const avroType = (await registry.getSchema(schemaId)) as unknown as avro.Type;
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
