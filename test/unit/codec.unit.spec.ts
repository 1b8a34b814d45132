import { describe, expect, it } from 'vitest';
import { promiseCache, schemaOfSubject, subjectFor } from '../../platform/events/codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { sqlCodec } from '../../platform/events/sql-codec.js';
import { migrate } from '../../platform/db/migrate.js';
import { openPglite } from '../../platform/db/pglite.js';
import { EventType } from '../../schemas/generated/events.js';
import { catalogEvents } from '../support/catalog-events.js';

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
    const db = await openPglite('memory://');
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
