import avro from 'avsc';
import type { Db } from '../db/db.js';
import { wireCodec, type EventCodec } from './codec.js';
import { refuseUnreadable, refuseUnreadableLater } from './readable-versions.js';
import type { KnownSchema } from './schema-catalog.js';

/**
 * The embedded default's schema registry: a table of (subject, schema) with integer ids, so the
 * embedded log stores exactly the bytes Kafka would. `setting` names where it lives (DATA_DIR or
 * DATABASE_URL) in a refusal.
 */
export function sqlCodec(db: Db, schemas: Map<string, KnownSchema>, setting = 'DATA_DIR'): EventCodec {
  return wireCodec(schemas, {
    async idForSubject(subject, schema) {
      const { rows: versions } = await db.query<{ id: number; schema_text: string }>('SELECT id, schema_text FROM embedded_schemas WHERE subject = $1 ORDER BY id', [subject]);
      const same = versions.find((version) => version.schema_text === schema.text);
      if (same) {
        // A newer build's version after ours (this one run again after it, a rollback) that ours cannot read stops the start, not the projections at its first event.
        for (const later of versions.filter((version) => version.id > same.id)) {
          refuseUnreadableLater(setting, subject, schema, { id: same.id, schemaText: same.schema_text }, { id: later.id, schemaText: later.schema_text }, 'run the newer build (or one after it), whose schema reads them');
        }
        return same.id;
      }
      // As a registry under BACKWARD refuses it, and against every version: events of each are in this log for good.
      for (const version of versions) refuseUnreadable(setting, subject, schema, { id: version.id, schemaText: version.schema_text });
      const { rows } = await db.query<{ id: number }>(
        `INSERT INTO embedded_schemas (subject, schema_text) VALUES ($1, $2)
         ON CONFLICT (subject, schema_text) DO UPDATE SET subject = EXCLUDED.subject
         RETURNING id`,
        [subject, schema.text],
      );
      return rows[0]!.id;
    },
    async schemaById(schemaId) {
      const { rows } = await db.query<{ schema_text: string }>('SELECT schema_text FROM embedded_schemas WHERE id = $1', [schemaId]);
      if (!rows[0]) throw new Error(`schema id ${schemaId} is not in the embedded registry`);
      return avro.Type.forSchema(JSON.parse(rows[0].schema_text) as avro.Schema);
    },
  });
}
