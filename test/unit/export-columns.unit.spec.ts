import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { loadSchemaCatalog, type KnownSchema } from '../../platform/events/schema-catalog.js';
import { EventType } from '../../schemas/generated/events.js';
import { TOPICS } from '../../schemas/topics.js';
import { isoToMicros } from '../../services/export/columns.js';
import { LOG_COLUMNS, eventTable } from '../../services/export/event-columns.js';

const catalog = loadSchemaCatalog();
const typesOf = (topic: string) => [...catalog.values()].filter((schema) => schema.topic === topic);
const logged = (type: string, value: Record<string, unknown>): LoggedEvent => ({
  topic: 'catalog',
  partition: 2,
  offset: '9007199254740993',
  key: 'entry-1',
  type,
  value,
  schemaId: 7,
  timestamp: new Date('2026-11-01T10:00:00.123Z'),
});

/** A schema of this build's shape from an inline record, for cases the real schemas do not have. */
function known(name: string, fields: { name: string; type: unknown }[]): KnownSchema {
  const schema = { type: 'record' as const, name, namespace: 'test', fields };
  return { topic: 'test', path: `test/${name}.avsc`, fullName: `test.${name}`, schema, avroType: avro.Type.forSchema(schema as avro.Schema), text: JSON.stringify(schema) };
}

describe('export columns of events', () => {
  it('every topic of this build exports as one table: log columns first, each field name once', () => {
    for (const { topic } of TOPICS) {
      const table = eventTable(typesOf(topic));
      const names = table.columns.map((column) => column.name);
      expect(names.slice(0, LOG_COLUMNS.length)).toEqual(LOG_COLUMNS.map((column) => column.name));
      expect(new Set(names).size, topic).toBe(names.length);
      const fields = new Set(typesOf(topic).flatMap((schema) => schema.schema.fields.map((field) => field.name)));
      expect(names.length).toBe(LOG_COLUMNS.length + fields.size);
    }
  });

  it('one type: its fields in schema order, typed by their Avro type, nullable only where the schema allows null', () => {
    const table = eventTable([catalog.get(EventType.PostbackReceived)!]);
    const fields = table.columns.slice(LOG_COLUMNS.length);
    expect(fields.map((column) => column.name)).toEqual(catalog.get(EventType.PostbackReceived)!.schema.fields.map((field) => field.name));
    const byName = new Map(fields.map((column) => [column.name, column]));
    expect(byName.get('identity_kind')).toMatchObject({ kind: 'text', nullable: false });
    expect(byName.get('received_at')).toMatchObject({ kind: 'timestamp', nullable: false });
    expect(byName.get('event_id')).toMatchObject({ kind: 'text', nullable: true });
    expect(fields.every((column) => column.eventTypes === undefined && column.doc)).toBe(true);
  });

  it('several types: shared fields are one column, every field column nullable and naming its types', () => {
    const table = eventTable(typesOf('catalog'));
    const byName = new Map(table.columns.map((column) => [column.name, column]));
    expect(byName.get('entry_id')).toMatchObject({ kind: 'text', nullable: true, eventTypes: ['CatalogEntryRecorded', 'CatalogEntryRemoved'] });
    expect(byName.get('tags')).toMatchObject({ kind: 'json', nullable: true, eventTypes: ['CatalogEntryRecorded'] });
    expect(byName.get('reason')).toMatchObject({ kind: 'text', eventTypes: ['CatalogEntryRemoved'] });
  });

  it('a field whose kind differs between types becomes json, keeping each value as decoded', () => {
    const table = eventTable([known('A', [{ name: 'x', type: 'string' }]), known('B', [{ name: 'x', type: { type: 'long', logicalType: 'timestamp-millis' } }])]);
    expect(table.columns.at(-1)).toMatchObject({ name: 'x', kind: 'json' });
    expect(table.row(logged('test.B', { x: 1_700_000_000_000 })).at(-1)).toBe(1_700_000_000_000);
    expect(table.row(logged('test.A', { x: 'text' })).at(-1)).toBe('text');
  });

  it('rows: log position and time first, timestamps as RFC 3339, longs as exact text, absent fields null', () => {
    const table = eventTable(typesOf('catalog'));
    const row = table.row(logged(EventType.CatalogEntryRemoved, { event_id: 'e1', entry_id: 'entry-1', reason: null, removed_at: Date.UTC(2026, 10, 2) }));
    const cells = Object.fromEntries(table.columns.map((column, index) => [column.name, row[index]]));
    expect(cells).toEqual({
      log_topic: 'catalog', log_partition: 2, log_offset: '9007199254740993', log_timestamp: '2026-11-01T10:00:00.123Z', log_key: 'entry-1',
      event_type: 'CatalogEntryRemoved', schema_id: 7, event_id: 'e1', entry_id: 'entry-1', name: null, amount: null, currency: null,
      tags: null, recorded_at: null, reason: null, removed_at: '2026-11-02T00:00:00.000Z',
    });
    const longs = eventTable([known('L', [{ name: 'n', type: 'long' }, { name: 'b', type: 'bytes' }])]);
    expect(longs.row(logged('test.L', { n: 42, b: Buffer.from('hi') })).slice(-2)).toEqual(['42', 'aGk=']);
  });

  it('an event of a type outside the table is an error naming its position', () => {
    const table = eventTable([catalog.get(EventType.CatalogEntryRecorded)!]);
    expect(() => table.row(logged(EventType.CatalogEntryRemoved, {}))).toThrow(/CatalogEntryRemoved at catalog:2:9007199254740993/);
  });
});

describe('isoToMicros', () => {
  it('keeps up to six fraction digits', () => {
    expect(isoToMicros('2026-11-01T00:00:00Z')).toBe(BigInt(Date.UTC(2026, 10, 1)) * 1000n);
    expect(isoToMicros('2026-11-01T00:00:00.123456Z')).toBe(BigInt(Date.UTC(2026, 10, 1)) * 1000n + 123_456n);
    expect(isoToMicros('2026-11-01T00:00:00.5Z')).toBe(BigInt(Date.UTC(2026, 10, 1)) * 1000n + 500_000n);
    expect(() => isoToMicros('2026-11-01 00:00:00')).toThrow(/RFC 3339/);
  });
});
