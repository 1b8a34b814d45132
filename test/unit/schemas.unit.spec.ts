import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listSchemaFiles } from '../../schemas/files.js';
import { isGeneratedCurrent } from '../../schemas/codegen/generate.js';
import { encodeChecked, loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { toWireFormat, WIRE_HEADER_LENGTH, wireSchemaId } from '../../platform/events/wire-format.js';
import { EventType, eventTopic } from '../../schemas/generated/events.js';

describe('event schemas', () => {
  it('generated TypeScript types match the .avsc files', () => {
    expect(isGeneratedCurrent()).toBe(true);
  });

  it('every event is a namespaced record named in the past tense, with a doc on every field', () => {
    const files = listSchemaFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(file.schema.namespace, file.path).toMatch(/^offerledger\./);
      expect(file.schema.name, file.path).toMatch(/(ed|Sent|Set)$/);
      expect(file.path).toBe(`${file.topic}/${file.schema.name}.avsc`);
      for (const field of file.schema.fields) expect(field.doc, `${file.path} ${field.name}`).toBeTruthy();
    }
  });

  it('maps every generated event type to the topic folder it lives in', () => {
    expect(eventTopic[EventType.CatalogEntryRecorded]).toBe('catalog');
  });

  it('refuses a value that does not match its schema, naming the field', () => {
    const schema = loadSchemaCatalog().get(EventType.CatalogEntryRemoved)!;
    expect(() => encodeChecked(schema, { event_id: 'e', entry_id: 1, reason: null, removed_at: 0 })).toThrow(/entry_id/);
  });
});

describe('Confluent wire format', () => {
  it('round-trips any schema id and body', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.uint8Array(), (schemaId, body) => {
        const message = toWireFormat(schemaId, Buffer.from(body));
        expect(wireSchemaId(message)).toBe(schemaId);
        expect([...message.subarray(WIRE_HEADER_LENGTH)]).toEqual([...body]);
      }),
    );
  });

  it('rejects bytes without the magic byte', () => {
    expect(() => wireSchemaId(Buffer.from([1, 0, 0, 0, 1]))).toThrow(/wire format/);
    expect(() => wireSchemaId(Buffer.from([0, 0]))).toThrow(/wire format/);
  });
});
