import { randomUUID } from 'node:crypto';
import avro from 'avsc';
import { describe, expect, inject, it } from 'vitest';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { testEnvironment } from '../support/app.js';
import { startServiceProcess } from '../support/child-process.js';
import { createTestDatabase } from '../support/database.js';

/**
 * The client library registers a subject's first version and then sets its compatibility. A
 * subject left between the two (a process stopped there, or another one registering it at that
 * moment) reports the registry's default, NONE: every later start of the service stopped on it
 * ("Compatibility does not match the configuration (BACKWARD != NONE)"). On the real registry.
 */
describe('registering on a subject that has no compatibility of its own', () => {
  const registry = inject('stack').schemaRegistryUrl.replace(/\/$/, '');
  const schemas = loadSchemaCatalog();
  const [type, schema] = [...schemas.entries()].find(([, known]) => known.topic === 'accounts')!;
  const headers = { 'content-type': 'application/vnd.schemaregistry.v1+json' };

  it('gives the subject BACKWARD and registers, where a level an operator chose is kept', async () => {
    const topic = `compat-${randomUUID()}.accounts`;
    const subject = `${topic}-${type}`;
    // Half registered: the first version, and no config.
    const posted = await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions`, { method: 'POST', headers, body: JSON.stringify({ schema: schema.text }) });
    expect(posted.status, await posted.text()).toBe(200);
    expect(await (await fetch(`${registry}/config/${encodeURIComponent(subject)}`)).json()).toMatchObject({ compatibilityLevel: 'NONE' });

    const prefix = topic.slice(0, -'accounts'.length);
    await registryCodec(registry, schemas).prepare((name) => `${prefix}${name}`);
    expect(await (await fetch(`${registry}/config/${encodeURIComponent(subject)}`)).json()).toMatchObject({ compatibilityLevel: 'BACKWARD' });

    // A level set on purpose is not ours to change: the start says so.
    const chosen = `compat-${randomUUID()}.accounts`;
    const chosenSubject = `${chosen}-${type}`;
    await fetch(`${registry}/subjects/${encodeURIComponent(chosenSubject)}/versions`, { method: 'POST', headers, body: JSON.stringify({ schema: schema.text }) });
    await fetch(`${registry}/config/${encodeURIComponent(chosenSubject)}`, { method: 'PUT', headers, body: JSON.stringify({ compatibility: 'FULL' }) });
    const chosenPrefix = chosen.slice(0, -'accounts'.length);
    await expect(registryCodec(registry, schemas).prepare((name) => `${chosenPrefix}${name}`)).rejects.toThrow(`SCHEMA_REGISTRY_URL (${registry}): subject ${chosenSubject} has compatibility FULL, not BACKWARD; set it to BACKWARD`);
  });

  // NONE set by hand reads as no level at all (Apicurio keeps no rule for it), so it is made
  // BACKWARD like a half-registered subject's, before ours is registered: the registry then checks
  // ours against the latest version, and the start every other version, so NONE lets no schema in
  // that cannot read what the subject holds.
  it('makes a subject set to NONE by hand BACKWARD before registering, so a schema that cannot read its versions is refused, not registered', async () => {
    const prefix = `compat-${randomUUID()}.`;
    const removed = 'offerledger.catalog.CatalogEntryRemoved';
    const ours = schemas.get(removed)!;
    const subject = `${prefix}catalog-${removed}`;
    const theirs = { ...ours.schema, fields: ours.schema.fields.map((field) => (field.name === 'entry_id' ? { ...field, type: 'int' } : field)) };
    const posted = await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions`, { method: 'POST', headers, body: JSON.stringify({ schema: JSON.stringify(theirs) }) });
    expect(posted.status, await posted.text()).toBe(200);
    const none = await fetch(`${registry}/config/${encodeURIComponent(subject)}`, { method: 'PUT', headers, body: JSON.stringify({ compatibility: 'NONE' }) });
    expect(none.status, await none.text()).toBe(200);

    await expect(registryCodec(registry, schemas).prepare((name) => `${prefix}${name}`)).rejects.toThrow(
      `SCHEMA_REGISTRY_URL (${registry}): the registry refuses this build's schemas/catalog/CatalogEntryRemoved.avsc as incompatible (BACKWARD) with the latest version of subject ${subject}: `,
    );
    expect(await (await fetch(`${registry}/config/${encodeURIComponent(subject)}`)).json()).toMatchObject({ compatibilityLevel: 'BACKWARD' });
    expect(await (await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions`)).json()).toEqual([1]);
  });

  // Apicurio answers a PUT of a subject's compatibility with 409 ("A rule named 'COMPATIBILITY'
  // already exists") when another PUT of the same subject lands at the same moment: two
  // processes starting together on a fresh registry (API and projector) made one of them exit.
  it('lets many processes register the same new subjects at once', async () => {
    const starts = 16;
    for (let round = 0; round < 3; round += 1) {
      const prefix = `compat-${randomUUID()}.`;
      const results = await Promise.allSettled(Array.from({ length: starts }, () => registryCodec(registry, schemas).prepare((name) => `${prefix}${name}`)));
      expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
      const config = await fetch(`${registry}/config/${encodeURIComponent(`${prefix}accounts-${type}`)}`);
      expect(await config.json()).toMatchObject({ compatibilityLevel: 'BACKWARD' });
    }
  });
});

/**
 * Someone else's version under one of our subjects that this build's schema cannot read (here a
 * field's type changed): the registry refuses ours as incompatible. The start stops there, saying
 * which subject and file, the registry's reason and what to do; it named KAFKA_BROKERS and said
 * to check that Kafka runs.
 */
/** A projector started on `prefix`'s topics: it must exit 4 with one error line, which is answered. */
async function refusedStart(prefix: string): Promise<string> {
  const database = await createTestDatabase();
  try {
    const projector = startServiceProcess('services/projector/main.ts', testEnvironment(database, prefix, { eventLog: 'kafka', env: { LOG_LEVEL: 'info' } }));
    expect(await projector.exited).toBe(4);
    const said = projector.output().split('\n').filter((line) => line.startsWith('error: '));
    expect(said).toHaveLength(1);
    return said[0]!;
  } finally {
    await database.drop();
  }
}

describe('a start on a subject whose latest version this build cannot read', () => {
  const registry = inject('stack').schemaRegistryUrl.replace(/\/$/, '');
  const schemas = loadSchemaCatalog();
  const type = 'offerledger.catalog.CatalogEntryRemoved';
  const ours = schemas.get(type)!;
  const headers = { 'content-type': 'application/vnd.schemaregistry.v1+json' };

  it('is refused, exit 4, in one line naming the subject, the file, the reason and what to do', async () => {
    const prefix = `compat-${randomUUID()}.`;
    const subject = `${prefix}catalog-${type}`;
    const theirs = { ...ours.schema, fields: ours.schema.fields.map((field) => (field.name === 'entry_id' ? { ...field, type: 'int' } : field)) };
    const posted = await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions`, { method: 'POST', headers, body: JSON.stringify({ schema: JSON.stringify(theirs) }) });
    expect(posted.status, await posted.text()).toBe(200);
    await fetch(`${registry}/config/${encodeURIComponent(subject)}`, { method: 'PUT', headers, body: JSON.stringify({ compatibility: 'BACKWARD' }) });

    const said = await refusedStart(prefix);
    expect(said).toContain(`SCHEMA_REGISTRY_URL (${registry}): the registry refuses this build's schemas/catalog/CatalogEntryRemoved.avsc as incompatible (BACKWARD) with the latest version of subject ${subject}: `);
    // The registry's own reason, and both ways out.
    expect(said).toMatch(/entry_id|fields\/1/);
    expect(said).toContain('make the change compatible');
    expect(said).toContain('run that build');
    expect(said).not.toContain('KAFKA_BROKERS');
  });

  it('is refused when it cannot read a version before the latest, which the registry does not check under BACKWARD', async () => {
    const prefix = `compat-${randomUUID()}.`;
    const subject = `${prefix}catalog-${type}`;
    // v1 without entry_id, v2 with it and a default (BACKWARD takes it), ours with it and none:
    // the registry checks ours against v2 only, and ours cannot read v1's events.
    const withoutEntry = { ...ours.schema, fields: ours.schema.fields.filter((field) => field.name !== 'entry_id') };
    const withDefault = { ...ours.schema, fields: ours.schema.fields.map((field) => (field.name === 'entry_id' ? { ...field, default: '' } : field)) };
    const ids: number[] = [];
    for (const version of [withoutEntry, withDefault]) {
      const posted = await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions`, { method: 'POST', headers, body: JSON.stringify({ schema: JSON.stringify(version) }) });
      expect(posted.status, await posted.clone().text()).toBe(200);
      ids.push(((await posted.json()) as { id: number }).id);
      await fetch(`${registry}/config/${encodeURIComponent(subject)}`, { method: 'PUT', headers, body: JSON.stringify({ compatibility: 'BACKWARD' }) });
    }
    await expect(registryCodec(registry, schemas).prepare((name) => `${prefix}${name}`)).rejects.toThrow(
      `SCHEMA_REGISTRY_URL (${registry}): this build's schemas/catalog/CatalogEntryRemoved.avsc cannot read the events of ${subject} written with its version 1 (schema id ${ids[0]}) (`,
    );
  });

  /** Registers `schema` under `subject` with compatibility lifted (as an operator, or a newer build's deploy, may), and gives its id. */
  const registerLater = async (subject: string, schema: object) => {
    await fetch(`${registry}/config/${encodeURIComponent(subject)}`, { method: 'PUT', headers, body: JSON.stringify({ compatibility: 'NONE' }) });
    const posted = await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions`, { method: 'POST', headers, body: JSON.stringify({ schema: JSON.stringify(schema) }) });
    expect(posted.status, await posted.clone().text()).toBe(200);
    await fetch(`${registry}/config/${encodeURIComponent(subject)}`, { method: 'PUT', headers, body: JSON.stringify({ compatibility: 'BACKWARD' }) });
    return ((await posted.json()) as { id: number }).id;
  };
  const wireEvent = (schemaId: number, body: Buffer) => {
    const header = Buffer.from([0, 0, 0, 0, 0]);
    header.writeUInt32BE(schemaId, 1);
    return Buffer.concat([header, body]);
  };

  it('registered after ours and readable by it (a field added with a default): the start goes on, and its events read in our shape', async () => {
    const prefix = `compat-${randomUUID()}.`;
    const subject = `${prefix}catalog-${type}`;
    await registryCodec(registry, schemas).prepare((name) => `${prefix}${name}`);
    const theirs = { ...ours.schema, fields: [...ours.schema.fields, { name: 'operator', type: ['null', 'string'], default: null }] };
    const theirId = await registerLater(subject, theirs);

    const starting = registryCodec(registry, schemas);
    await starting.prepare((name) => `${prefix}${name}`);
    const theirEvent = wireEvent(theirId, avro.Type.forSchema(theirs as avro.Schema).toBuffer({ event_id: 'e1', entry_id: 'x', reason: null, removed_at: 0, operator: 'ops' }));
    expect((await starting.decode(theirEvent)).value).toEqual({ event_id: 'e1', entry_id: 'x', reason: null, removed_at: 0 });
  });

  // A rollback (or an instance of the build before restarting while a deploy rolls) on a
  // subject where a newer build registered a version this build cannot read: it started, then
  // stopped each projection of the topic at the first event of that version.
  it('registered after ours and unreadable by it: the start is refused, exit 4, in one line naming the subject, both versions and what to do', async () => {
    const prefix = `compat-${randomUUID()}.`;
    const subject = `${prefix}catalog-${type}`;
    const running = registryCodec(registry, schemas);
    await running.prepare((name) => `${prefix}${name}`);
    const theirs = { ...ours.schema, fields: ours.schema.fields.map((field) => (field.name === 'entry_id' ? { ...field, type: 'int' } : field)) };
    const theirId = await registerLater(subject, theirs);
    const ourId = ((await (await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions/1`)).json()) as { id: number }).id;

    const said = await refusedStart(prefix);
    expect(said).toContain(
      `SCHEMA_REGISTRY_URL (${registry}): this build's schemas/catalog/CatalogEntryRemoved.avsc (version 1 (schema id ${ourId}) of ${subject}) cannot read the events written with version 2 (schema id ${theirId}), which a newer build registered after it (`,
    );
    expect(said).toContain('run the newer build');
    expect(said).toContain('DELETE /subjects/<subject>/versions/2');
    // A process that started before that version was registered names its events by id, type and file when it meets them.
    await expect(running.decode(wireEvent(theirId, Buffer.from([2, 0x65, 6, 0, 0])))).rejects.toThrow(
      `schema id ${theirId} is a version of ${type} that this build's schemas/catalog/CatalogEntryRemoved.avsc cannot read: cannot read "int" as "string"`,
    );
  });
});
