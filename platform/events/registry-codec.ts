import type avro from 'avsc';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { wireCodec, type EventCodec } from './codec.js';
import type { KnownSchema } from './schema-catalog.js';

/**
 * How long one registry request may take. Without it a registry that accepts connections and
 * never answers (hung, or behind a stalled proxy) held the first append of each event type, and
 * the request that made it, forever; now it fails as an unreachable registry does and the caller
 * answers 503. Schema ids, once known, are cached: a registry that is down stops only appends of
 * an event type not appended before by this process, and reads of a schema not read before.
 */
export const REGISTRY_TIMEOUT_MS = 5_000;

type RegistryMiddleware = NonNullable<ConstructorParameters<typeof SchemaRegistry>[0]['middlewares']>[number];

/** Gives every registry request a deadline (the client's HTTP layer aborts it and fails the call). */
const answerWithin = (timeoutMs: number): RegistryMiddleware => () => ({
  async prepareRequest(next) {
    return (await next()).enhance({ timeout: timeoutMs });
  },
});

/** Codec backed by a Confluent-compatible registry (Apicurio's ccompat API in our stack). */
export function registryCodec(registryUrl: string, schemas: Map<string, KnownSchema>, options: { timeoutMs?: number } = {}): EventCodec {
  const registry = new SchemaRegistry({ host: registryUrl, clientId: 'offer-ledger', middlewares: [answerWithin(options.timeoutMs ?? REGISTRY_TIMEOUT_MS)] });
  return wireCodec(schemas, {
    async idForSubject(subject, schema) {
      return (await registry.register({ type: SchemaType.AVRO, schema: schema.text }, { subject })).id;
    },
    async schemaById(schemaId) {
      return (await registry.getSchema(schemaId)) as unknown as avro.Type;
    },
  });
}
