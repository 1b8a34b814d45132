import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listSchemaFiles } from '../../schemas/files.js';
import { isGeneratedCurrent } from '../../schemas/codegen/generate.js';
import { readVersions, unreadableByPrevious, unreadableVersions, unrecordedSchemas, withCurrentVersions } from '../../schemas/codegen/versions.js';
import { encodeChecked, loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { toWireFormat, WIRE_HEADER_LENGTH, wireSchemaId } from '../../platform/events/wire-format.js';
import { EventType, eventTopic } from '../../schemas/generated/events.js';

describe('event schemas', () => {
  it('generated TypeScript types match the .avsc files', () => {
    expect(isGeneratedCurrent()).toBe(true);
  });

  it('every schema is recorded as the latest version of its type, and reads every earlier one', () => {
    const files = listSchemaFiles();
    const versions = readVersions();
    expect(unrecordedSchemas(files, versions)).toEqual([]);
    expect(unreadableVersions(files, versions)).toEqual([]);
    // OfferUpserted's v1 (before destination_url) is among them: its events are in logs.
    expect(versions[EventType.OfferUpserted]!.map((version) => version.fields.some((field) => field.name === 'destination_url'))).toEqual([false, true]);
  });

  it('names a schema edited so that it cannot read its earlier versions: a field added without a default, a type changed', () => {
    const files = listSchemaFiles();
    const versions = readVersions();
    const edited = (change: (file: (typeof files)[number]) => (typeof files)[number]) =>
      files.map((file) => (file.fullName === EventType.CatalogEntryRemoved ? change(file) : file));
    const added = edited((file) => ({ ...file, schema: { ...file.schema, fields: [...file.schema.fields, { name: 'operator', type: 'string', doc: 'Who removed it.' }] } }));
    expect(unreadableVersions(added, versions)).toEqual([
      `schemas/catalog/CatalogEntryRemoved.avsc cannot read events written with version 1 of ${EventType.CatalogEntryRemoved}: field operator was added without a default`,
    ]);
    const retyped = edited((file) => ({ ...file, schema: { ...file.schema, fields: file.schema.fields.map((field) => (field.name === 'entry_id' ? { ...field, type: 'int' } : field)) } }));
    expect(unreadableVersions(retyped, versions)).toEqual([
      `schemas/catalog/CatalogEntryRemoved.avsc cannot read events written with version 1 of ${EventType.CatalogEntryRemoved}: field entry_id: cannot read "string" as "int"`,
    ]);
    // A field added with a default reads them; it is then a version to record, and only it.
    const defaulted = edited((file) => ({ ...file, schema: { ...file.schema, fields: [...file.schema.fields, { name: 'operator', type: ['null', 'string'], default: null, doc: 'Who removed it.' }] } }));
    expect(unreadableVersions(defaulted, versions)).toEqual([]);
    expect(unrecordedSchemas(defaulted, versions).map((file) => file.fullName)).toEqual([EventType.CatalogEntryRemoved]);
    expect(withCurrentVersions(defaulted, versions)[EventType.CatalogEntryRemoved]).toHaveLength(2);
    // A later edit is checked against every version, not only the latest: v1 had no operator.
    const recorded = withCurrentVersions(defaulted, versions);
    const tightened = edited((file) => ({ ...file, schema: { ...file.schema, fields: [...file.schema.fields, { name: 'operator', type: 'string', doc: 'Who removed it.' }] } }));
    expect(unreadableVersions(tightened, recorded)).toHaveLength(2);
  });

  it('refuses a recorded type whose .avsc was removed: its events stay in the log', () => {
    const versions = readVersions();
    const without = listSchemaFiles().filter((file) => file.fullName !== EventType.CatalogEntryRemoved);
    expect(unreadableVersions(without, versions)).toEqual([
      `no file in schemas/ defines ${EventType.CatalogEntryRemoved}, of which schemas/versions.json records 1 version(s): its events stay in the log, and a build without its schema stops its projections at the first of them; restore its .avsc (a type no longer written keeps its file)`,
    ]);
    // generate keeps its versions recorded: a removed file is not a removed type.
    expect(withCurrentVersions(without, versions)[EventType.CatalogEntryRemoved]).toEqual(versions[EventType.CatalogEntryRemoved]);
  });

  it('warns of a schema whose events the version before it cannot read (a field without a default removed), without refusing it', () => {
    const files = listSchemaFiles();
    const versions = readVersions();
    expect(unreadableByPrevious(files, versions)).toEqual([]);
    const dropped = files.map((file) =>
      file.fullName === EventType.CatalogEntryRemoved ? { ...file, schema: { ...file.schema, fields: file.schema.fields.filter((field) => field.name !== 'entry_id') } } : file,
    );
    expect(unreadableVersions(dropped, versions)).toEqual([]);
    const recorded = withCurrentVersions(dropped, versions);
    // Warned both before and after the version is recorded: the one before is version 1.
    for (const record of [versions, recorded]) {
      expect(unreadableByPrevious(dropped, record)).toEqual([
        expect.stringContaining(`warning: events written with schemas/catalog/CatalogEntryRemoved.avsc cannot be read by version 1 of ${EventType.CatalogEntryRemoved} (field entry_id was removed, and that version has no default for it)`),
      ]);
    }
  });

  it('a doc edited is no new version', () => {
    const files = listSchemaFiles().map((file) => ({ ...file, schema: { ...file.schema, doc: `${file.schema.doc ?? ''} (edited)` } }));
    expect(unrecordedSchemas(files, readVersions())).toEqual([]);
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
