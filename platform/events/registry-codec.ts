import type avro from 'avsc';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { wireCodec, type EventCodec } from './codec.js';
import type { KnownSchema } from './schema-catalog.js';

/** Codec backed by a Confluent-compatible registry (Apicurio's ccompat API in our stack). */
export function registryCodec(registryUrl: string, schemas: Map<string, KnownSchema>): EventCodec {
  const registry = new SchemaRegistry({ host: registryUrl, clientId: 'offer-ledger' });
  return wireCodec(schemas, {
    async idForSubject(subject, schema) {
      return (await registry.register({ type: SchemaType.AVRO, schema: schema.text }, { subject })).id;
    },
    async schemaById(schemaId) {
      return (await registry.getSchema(schemaId)) as unknown as avro.Type;
    },
  });
}
