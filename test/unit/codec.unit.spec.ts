import { describe, expect, it } from 'vitest';
import avro from 'avsc';
import { decodeInOrder, promiseCache, schemaOfSubject, subjectFor, wireCodec } from '../../platform/events/codec.js';
import { loadSchemaCatalog, type KnownSchema } from '../../platform/events/schema-catalog.js';
import { sqlCodec } from '../../platform/events/sql-codec.js';
import { toWireFormat } from '../../platform/events/wire-format.js';
import { migrate } from '../../platform/db/migrate.js';
import { EventType } from '../../schemas/generated/events.js';
import { catalogEvents } from '../support/catalog-events.js';
import { openScratchPglite } from '../support/embedded-cluster.js';

describe('promiseCache', () => {
  it('shares one lookup among concurrent callers and forgets failures', async () => {
    let loads = 0;
    const lookup = promiseCache(async (key: string) => {
      loads += 1;
      if (key === 'bad' && loads < 3) throw new Error('transient');
      return key.length;
    });
    expect(await Promise.all([lookup('abc'), lookup('abc'), lookup('abc')])).toEqual([3, 3, 3]);
    expect(loads).toBe(1);
    await expect(lookup('bad')).rejects.toThrow('transient');
    expect(await lookup('bad')).toBe(3);
  });
});

describe('subjects (TopicRecordNameStrategy)', () => {
  it('names topic and record, and finds the schema back even when the topic prefix has dashes', () => {
    const schemas = loadSchemaCatalog();
    const subject = subjectFor('env-a.catalog', EventType.CatalogEntryRemoved);
    expect(subject).toBe('env-a.catalog-offerledger.catalog.CatalogEntryRemoved');
    expect(schemaOfSubject(schemas, subject).fullName).toBe(EventType.CatalogEntryRemoved);
    expect(() => schemaOfSubject(schemas, 'catalog-offerledger.catalog.Nope')).toThrow(/no schema/);
  });
});

describe('embedded codec', () => {
  it('round-trips values of several types through the wire format with one id per subject', async () => {
    const db = await openScratchPglite();
    try {
      await migrate(db);
      const codec = sqlCodec(db, loadSchemaCatalog());
      const events = catalogEvents(10);
      const encoded = await Promise.all(events.map((event) => codec.encode('catalog', event.type, event.value)));
      const decoded = await Promise.all(encoded.map((bytes) => codec.decode(bytes)));
      expect(decoded.map(({ type, value }) => ({ type, value }))).toEqual(events.map(({ type, value }) => ({ type, value })));
      expect(new Set(decoded.map((event) => event.schemaId)).size).toBe(2);
      const { rows } = await db.query<{ subject: string }>('SELECT subject FROM embedded_schemas ORDER BY subject');
      expect(rows.map((row) => row.subject)).toEqual([
        `catalog-${EventType.CatalogEntryRecorded}`,
        `catalog-${EventType.CatalogEntryRemoved}`,
      ]);
    } finally {
      await db.close();
    }
  });
});

describe('a writer schema this build cannot read', () => {
  it('is named by its id, its type and our file, with the reason', async () => {
    const schemas = loadSchemaCatalog();
    const ours = schemas.get(EventType.CatalogEntryRemoved)!;
    // Another build's version: entry_id an int.
    const theirs = avro.Type.forSchema({ ...ours.schema, fields: ours.schema.fields.map((field) => (field.name === 'entry_id' ? { ...field, type: 'int' } : field)) } as avro.Schema);
    const codec = wireCodec(schemas, { idForSubject: async () => 1, schemaById: async () => theirs });
    const message = toWireFormat(7, theirs.toBuffer({ event_id: 'e', entry_id: 3, reason: null, removed_at: 0 }));
    await expect(codec.decode(message)).rejects.toThrow(
      `schema id 7 is a version of ${EventType.CatalogEntryRemoved} that this build's schemas/catalog/CatalogEntryRemoved.avsc cannot read: cannot read "int" as "string"`,
    );
  });
});

describe('decoding without waiting', () => {
  /** A registry stand-in: one id per subject, schemas by id. */
  function memoryCodec() {
    const ids = new Map<string, number>();
    const byId = new Map<number, avro.Type>();
    let lookups = 0;
    const codec = wireCodec(loadSchemaCatalog(), {
      async idForSubject(subject: string, schema: KnownSchema) {
        if (!ids.has(subject)) {
          ids.set(subject, ids.size + 1);
          byId.set(ids.size, schema.avroType);
        }
        return ids.get(subject)!;
      },
      async schemaById(schemaId: number) {
        lookups += 1;
        return byId.get(schemaId)!;
      },
    });
    return { codec, lookups: () => lookups };
  }

  it('decodes a message at once once its schema is known, with the same result as decode', async () => {
    const { codec, lookups } = memoryCodec();
    const events = catalogEvents(6);
    const encoded = await Promise.all(events.map((event) => codec.encode('catalog', event.type, event.value)));
    expect(codec.decodeKnown(encoded[0]!)).toBeUndefined();
    const first = await codec.decode(encoded[0]!);
    expect(first.value).toEqual(events[0]!.value);
    const known = encoded.map((bytes) => codec.decodeKnown(bytes));
    // The batch has two types: the other type's schema is not known until it is decoded once.
    const sameType = events.map((event) => event.type === events[0]!.type);
    expect(known.map((decoded) => decoded !== undefined)).toEqual(sameType);
    for (const [index, decoded] of known.entries()) if (decoded) expect(decoded).toEqual(await codec.decode(encoded[index]!));
    await Promise.all(encoded.map((bytes) => codec.decode(bytes)));
    expect(encoded.every((bytes) => codec.decodeKnown(bytes) !== undefined)).toBe(true);
    expect(lookups()).toBe(2);
  });

  it('decodes a batch in order, waiting only for the schemas it meets first', async () => {
    const { codec, lookups } = memoryCodec();
    const events = catalogEvents(8);
    const encoded = await Promise.all(events.map((event) => codec.encode('catalog', event.type, event.value)));
    const decoded = await decodeInOrder(codec, encoded);
    expect(decoded.map(({ type, value }) => ({ type, value }))).toEqual(events.map(({ type, value }) => ({ type, value })));
    expect(lookups()).toBe(2);
  });

  it('refuses a body with bytes left over or cut short, and bytes not in the wire format', async () => {
    const { codec } = memoryCodec();
    const [event] = catalogEvents(1);
    const bytes = await codec.encode('catalog', event!.type, event!.value);
    await codec.decode(bytes);
    expect(() => codec.decodeKnown(Buffer.concat([bytes, Buffer.from([0])]))).toThrow(/trailing bytes/);
    expect(() => codec.decodeKnown(bytes.subarray(0, bytes.length - 1))).toThrow(/truncated/);
    expect(() => codec.decodeKnown(Buffer.from([1, 0, 0, 0, 1]))).toThrow(/wire format/);
  });
});
