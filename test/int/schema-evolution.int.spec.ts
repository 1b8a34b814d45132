import { randomBytes } from 'node:crypto';
import avro from 'avsc';
import { describe, expect, inject, it } from 'vitest';
import { subjectFor, type SchemaStore } from '../../platform/events/codec.js';
import { wireCodec } from '../../platform/events/codec.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog, type KnownSchema } from '../../platform/events/schema-catalog.js';
import { sqlCodec } from '../../platform/events/sql-codec.js';
import { toWireFormat } from '../../platform/events/wire-format.js';
import { migrate } from '../../platform/db/migrate.js';
import { EventType } from '../../schemas/generated/events.js';
import { testEnvironment } from '../support/app.js';
import { startServiceProcess } from '../support/child-process.js';
import { createTestDatabase } from '../support/database.js';
import { openScratchPglite } from '../support/embedded-cluster.js';

/**
 * OfferUpserted v2 adds `destination_url` with a default. The registry must accept it as a
 * BACKWARD-compatible version of v1, and events written with v1 must still decode, reading the
 * new field as its default. Both codecs read through the same resolution.
 */
const catalog = loadSchemaCatalog();
const current = catalog.get(EventType.OfferUpserted)!;
const v1Schema = { ...current.schema, fields: current.schema.fields.filter((field) => field.name !== 'destination_url') };
const v1Type = avro.Type.forSchema(v1Schema as avro.Schema);

const v1Value = {
  event_id: '01939c5e-7b1a-7c3e-9f00-000000000001',
  offer_id: '01939c5e-7b1a-7c3e-9f00-000000000002',
  partner_id: '01939c5e-7b1a-7c3e-9f00-000000000003',
  upstream_offer_id: null,
  kind: 'local',
  status: 'active',
  deleted: false,
  delisted: false,
  test_only: false,
  details: null,
  targeting: [],
  internal: null,
  updated_at: 1_790_000_000_000,
};

async function registerWithRegistry(url: string, subject: string, schema: unknown): Promise<Response> {
  return fetch(`${url}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ schemaType: 'AVRO', schema: JSON.stringify(schema) }),
  });
}

describe('OfferUpserted v2 (destination_url) is a backward-compatible change', () => {
  it('the registry, set to BACKWARD, accepts v2 after v1 and refuses a field without a default', async () => {
    const registry = inject('stack').schemaRegistryUrl;
    const subject = subjectFor(`evo${randomBytes(4).toString('hex')}.offers`, EventType.OfferUpserted);
    const config = await fetch(`${registry}/config/${encodeURIComponent(subject)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ compatibility: 'BACKWARD' }),
    });
    expect(config.ok).toBe(true);
    expect((await registerWithRegistry(registry, subject, v1Schema)).ok).toBe(true);
    const breaking = { ...current.schema, fields: [...v1Schema.fields, { name: 'required_new', type: 'string' }] };
    expect((await registerWithRegistry(registry, subject, breaking)).status).toBe(409);
    expect((await registerWithRegistry(registry, subject, current.schema)).ok).toBe(true);

    // A v1 event on the registry decodes with destination_url null through the service's codec.
    const v1Id = ((await (await registerWithRegistry(registry, subject, v1Schema)).json()) as { id: number }).id;
    const decoded = await registryCodec(registry, catalog).decode(toWireFormat(v1Id, v1Type.toBuffer(v1Value)));
    expect(decoded.value).toEqual({ ...v1Value, destination_url: null });
  });

  it('the embedded registry decodes v1 events with destination_url null, and v2 events with it', async () => {
    const db = await openScratchPglite();
    try {
      await migrate(db);
      const store: SchemaStore = {
        idForSubject: async () => 0,
        schemaById: async () => avro.Type.forSchema(v1Schema as avro.Schema),
      };
      // v1 bytes read through the current schema, via a store that only knows v1.
      const old = await wireCodec(catalog, store).decode(toWireFormat(0, v1Type.toBuffer(v1Value)));
      expect(old.value).toEqual({ ...v1Value, destination_url: null });

      const codec = sqlCodec(db, catalog);
      const v2Value = { ...v1Value, destination_url: 'https://merchant.example/spring?click={svc_click_id}' };
      const bytes = await codec.encode('offers', EventType.OfferUpserted, v2Value);
      expect((await codec.decode(bytes)).value).toEqual(v2Value);
      const kept = catalog.get(EventType.OfferUpserted) as KnownSchema;
      expect(kept.schema.fields.at(-1)).toMatchObject({ name: 'destination_url', default: null });
    } finally {
      await db.close();
    }
  });
});

/**
 * The embedded registry checks a new version as the registry does under BACKWARD, against every
 * version of the subject: a build whose schema cannot read the events already in the log (here
 * an earlier build's entry_id was an int) does not start, so it writes nothing there. It started
 * before, and its projections stopped at the first such event.
 */
describe('a start on the embedded log with events of a version this build cannot read', () => {
  it('is refused, exit 4, in one line naming the file, the subject, the schema id and what to do', async () => {
    const database = await createTestDatabase();
    try {
      const prefix = `evo${randomBytes(4).toString('hex')}.`;
      const removed = catalog.get(EventType.CatalogEntryRemoved)!;
      const earlier = { ...removed.schema, fields: removed.schema.fields.map((field) => (field.name === 'entry_id' ? { ...field, type: 'int' } : field)) };
      await database.db.query('INSERT INTO embedded_schemas (subject, schema_text) VALUES ($1, $2)', [subjectFor(`${prefix}catalog`, EventType.CatalogEntryRemoved), JSON.stringify(earlier)]);
      const projector = startServiceProcess('services/projector/main.ts', testEnvironment(database, prefix, { eventLog: 'sql', env: { LOG_LEVEL: 'info' } }));
      // Either it stops, or it starts (and would apply nothing past the first such event).
      const outcome = await Promise.race([projector.exited, projector.waitForLog((entry) => entry.event === 'started', 50_000).then(() => 'started', () => projector.exited)]);
      expect(outcome, projector.output()).toBe(4);
      const said = projector.output().split('\n').filter((line) => line.startsWith('error: '));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(
        new RegExp(`^error: cannot start the projector: DATABASE_URL: this build's schemas/catalog/CatalogEntryRemoved\\.avsc cannot read the events of ${prefix.replace('.', '\\.')}catalog-${EventType.CatalogEntryRemoved.replaceAll('.', '\\.')} written with its schema id \\d+ \\(cannot read "int" as "string"\\); make the change compatible`),
      );
    } finally {
      await database.drop();
    }
  });

  // This build run again after a newer one registered a version it cannot read (a rollback):
  // its own version is found, and it started, to stop its projections at the first such event.
  it('is refused too when the version it cannot read was registered after its own, naming both', async () => {
    const database = await createTestDatabase();
    try {
      const prefix = `evo${randomBytes(4).toString('hex')}.`;
      const subject = subjectFor(`${prefix}catalog`, EventType.CatalogEntryRemoved);
      const removed = catalog.get(EventType.CatalogEntryRemoved)!;
      const newer = { ...removed.schema, fields: removed.schema.fields.map((field) => (field.name === 'entry_id' ? { ...field, type: 'int' } : field)) };
      const ids: number[] = [];
      for (const text of [removed.text, JSON.stringify(newer)]) {
        ids.push((await database.db.query<{ id: number }>('INSERT INTO embedded_schemas (subject, schema_text) VALUES ($1, $2) RETURNING id', [subject, text])).rows[0]!.id);
      }
      const projector = startServiceProcess('services/projector/main.ts', testEnvironment(database, prefix, { eventLog: 'sql', env: { LOG_LEVEL: 'info' } }));
      const outcome = await Promise.race([projector.exited, projector.waitForLog((entry) => entry.event === 'started', 50_000).then(() => 'started', () => projector.exited)]);
      expect(outcome, projector.output()).toBe(4);
      const said = projector.output().split('\n').filter((line) => line.startsWith('error: '));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain(
        `error: cannot start the projector: DATABASE_URL: this build's schemas/catalog/CatalogEntryRemoved.avsc (schema id ${ids[0]} of ${subject}) cannot read the events written with schema id ${ids[1]}, which a newer build registered after it (cannot read "int" as "string"), so its projections would stop at the first of them; run the newer build`,
      );
    } finally {
      await database.drop();
    }
  });
});
