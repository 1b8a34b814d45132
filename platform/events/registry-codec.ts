import avro from 'avsc';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { subjectFor, type DecodedEvent, type EventCodec } from './codec.js';
import { fromWireFormat, toWireFormat } from './wire-format.js';
import { encodeChecked, type KnownSchema } from './schema-catalog.js';

/** Codec backed by a Confluent-compatible registry (Apicurio's ccompat API in our stack). */
export function registryCodec(registryUrl: string, schemas: Map<string, KnownSchema>): EventCodec {
  const registry = new SchemaRegistry({ host: registryUrl, clientId: 'offer-ledger' });
  const idsBySubject = new Map<string, Promise<number>>();
  const readers = new Map<number, Promise<{ type: string; avroType: avro.Type }>>();

  function schemaIdFor(physicalTopic: string, schema: KnownSchema): Promise<number> {
    const subject = subjectFor(physicalTopic, schema.fullName);
    let id = idsBySubject.get(subject);
    if (!id) {
      id = registry
        .register({ type: SchemaType.AVRO, schema: schema.text }, { subject })
        .then((registered) => registered.id);
      // A failed registration must not be cached: the next append tries again.
      id.catch(() => idsBySubject.delete(subject));
      idsBySubject.set(subject, id);
    }
    return id;
  }

  function readerFor(schemaId: number) {
    let reader = readers.get(schemaId);
    if (!reader) {
      reader = registry.getSchema(schemaId).then((found) => {
        const avroType = found as unknown as avro.Type;
        return { type: avroType.name ?? 'unknown', avroType };
      });
      reader.catch(() => readers.delete(schemaId));
      readers.set(schemaId, reader);
    }
    return reader;
  }

  return {
    async encode(physicalTopic, type, value) {
      const schema = schemas.get(type);
      if (!schema) throw new Error(`unknown event type ${type}: no schema in schemas/`);
      const schemaId = await schemaIdFor(physicalTopic, schema);
      return toWireFormat(schemaId, encodeChecked(schema, value));
    },
    async decode(message): Promise<DecodedEvent> {
      const { schemaId, body } = fromWireFormat(message);
      const reader = await readerFor(schemaId);
      return { type: reader.type, value: reader.avroType.fromBuffer(body) as Record<string, unknown>, schemaId };
    },
  };
}
