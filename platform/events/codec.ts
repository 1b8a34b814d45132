import type avro from 'avsc';
import { eachAtMost } from '../async/each-at-most.js';
import { encodeChecked, type KnownSchema } from './schema-catalog.js';
import { toWireFormat, WIRE_HEADER_LENGTH, wireSchemaId } from './wire-format.js';

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
  /**
   * decode without waiting, for a message whose writer schema is already known (every message
   * but the first of each schema): undefined when it is not. A batch decoded this way costs no
   * promise per message.
   */
  decodeKnown(message: Buffer): DecodedEvent | undefined;
  /**
   * Registers every event schema of this build under its topic's subject and learns the ids, so
   * that from then on appending any event of this build, and reading one, needs the schema store
   * no more (a registry down after start stops nothing this build writes). Fails as registering
   * fails: an unreachable store, or a schema the store refuses as incompatible.
   */
  prepare(physicalTopic: (topic: string) => string): Promise<void>;
}

export const subjectFor = (physicalTopic: string, type: string) => `${physicalTopic}-${type}`;

/** The schema a subject names; Avro names never contain '-', so the type follows the last one. */
export function schemaOfSubject(schemas: Map<string, KnownSchema>, subject: string): KnownSchema {
  const schema = schemas.get(subject.slice(subject.lastIndexOf('-') + 1));
  if (!schema) throw new Error(`no schema in schemas/ for subject ${subject}`);
  return schema;
}

/** Where a codec keeps its schemas: a remote registry or the embedded table. Lookups are cached by the caller. */
export interface SchemaStore {
  /** Registers the schema under the subject (idempotent) and returns its id. */
  idForSubject(subject: string, schema: KnownSchema): Promise<number>;
  /** The writer schema of an id. */
  schemaById(schemaId: number): Promise<avro.Type>;
}

/** Reads the events of one writer schema, as this build's type of that name. */
interface SchemaReader {
  type: string;
  read(message: Buffer): Record<string, unknown>;
}

/** How many subjects one process registers at the same time when it opens the log. */
const PREPARE_SUBJECTS_AT_ONCE = 4;

export function wireCodec(schemas: Map<string, KnownSchema>, store: SchemaStore): EventCodec {
  const schemaIdFor = promiseCache((subject: string) => store.idForSubject(subject, schemaOfSubject(schemas, subject)));
  // Events are read in the shape of this build's schema of the same name: an event written with an
  // older version gets the defaults of fields added since (schema resolution), so readers never
  // see a field missing. A type this build has no schema for is not read at all: every projection
  // passes over types it does not apply, so such an event would vanish from the read models
  // without a word; it stops its partition instead, named by its place in the log.
  const known = new Map<number, SchemaReader>();
  const readerFor = promiseCache(async (schemaId: number) => {
    const writer = await store.schemaById(schemaId);
    const type = writer.name ?? 'unknown';
    const current = schemas.get(type);
    if (!current) {
      throw new Error(
        `schema id ${schemaId} is of type ${type}, which this build has no schema in schemas/ for (a type a newer build added, or one whose .avsc was removed: keep the file of a type no longer written), so no read model would take it`,
      );
    }
    const reader = schemaReader(schemaId, type, current.avroType, resolverFrom(current, writer, schemaId));
    known.set(schemaId, reader);
    return reader;
  });
  const decodeWith = (reader: SchemaReader, message: Buffer, schemaId: number): DecodedEvent => ({
    type: reader.type,
    value: reader.read(message),
    schemaId,
  });
  return {
    async encode(physicalTopic, type, value) {
      const schema = schemas.get(type);
      if (!schema) throw new Error(`unknown event type ${type}: no schema in schemas/`);
      const body = encodeChecked(schema, value);
      return toWireFormat(await schemaIdFor(subjectFor(physicalTopic, type)), body);
    },
    async prepare(physicalTopic) {
      // A few subjects at a time: every subject at once (some 170 requests per process) queued
      // each request behind all the others, and processes starting together on a busy registry
      // saw requests pass their deadline.
      await eachAtMost([...schemas.values()], PREPARE_SUBJECTS_AT_ONCE, async (schema) => {
        const schemaId = await schemaIdFor(subjectFor(physicalTopic(schema.topic), schema.fullName));
        // The id of this very schema: its events read as written, no resolution needed.
        if (!known.has(schemaId)) known.set(schemaId, schemaReader(schemaId, schema.fullName, schema.avroType));
      });
    },
    decodeKnown(message) {
      const schemaId = wireSchemaId(message);
      const reader = known.get(schemaId);
      return reader && decodeWith(reader, message, schemaId);
    },
    async decode(message) {
      const schemaId = wireSchemaId(message);
      return decodeWith(known.get(schemaId) ?? (await readerFor(schemaId)), message, schemaId);
    },
  };
}

/**
 * How this build's schema reads a writer version. One it cannot read (a version registered by
 * another build that changed a type, or dropped a default this one needs) is named with its id
 * and our file: resolution alone said only `cannot read "int" as "string"`.
 */
function resolverFrom(current: KnownSchema, writer: avro.Type, schemaId: number): avro.Resolver {
  try {
    return current.avroType.createResolver(writer);
  } catch (error) {
    throw new Error(`schema id ${schemaId} is a version of ${current.fullName} that this build's schemas/${current.path} cannot read: ${(error as Error).message}`, { cause: error });
  }
}

/** Reads a message body of `schemaId` past its header, in place (no sub-buffer per message), as `shape`. */
function schemaReader(schemaId: number, type: string, shape: avro.Type, resolver?: avro.Resolver): SchemaReader {
  return {
    type,
    read(message: Buffer) {
      const { value, offset } = shape.decode(message, WIRE_HEADER_LENGTH, resolver);
      // A body with bytes left over is not this schema's.
      if (offset !== message.length) throw new Error(`an event of schema ${schemaId} does not match its schema (${offset < 0 ? 'truncated' : 'trailing bytes'})`);
      return value as Record<string, unknown>;
    },
  };
}

/**
 * Decodes messages in order up to the first that cannot be decoded: the events before it, and
 * where and why it failed. Only the first message of a schema not met before waits (for its
 * writer schema), the rest decode at once, with no promise each.
 */
export async function decodeUntilFailure(codec: EventCodec, messages: readonly Buffer[]): Promise<{ decoded: DecodedEvent[]; failure?: { index: number; error: unknown } }> {
  const decoded: DecodedEvent[] = [];
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    try {
      decoded.push(codec.decodeKnown(message) ?? (await codec.decode(message)));
    } catch (error) {
      return { decoded, failure: { index, error } };
    }
  }
  return { decoded };
}

/** Decodes messages in order (decodeUntilFailure); throws what the first that cannot be decoded throws. */
export async function decodeInOrder(codec: EventCodec, messages: readonly Buffer[]): Promise<DecodedEvent[]> {
  const { decoded, failure } = await decodeUntilFailure(codec, messages);
  if (failure) throw failure.error;
  return decoded;
}

/**
 * Memoizes an async lookup by key. The promise is cached, not the value, so concurrent callers
 * (a batch decoded in parallel) share one lookup; a failed lookup is forgotten and retried.
 */
export function promiseCache<K, V>(load: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const cache = new Map<K, Promise<V>>();
  return (key) => {
    let value = cache.get(key);
    if (!value) {
      value = load(key);
      value.catch(() => cache.delete(key));
      cache.set(key, value);
    }
    return value;
  };
}
