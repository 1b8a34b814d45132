import avro from 'avsc';
import { BackendUnavailableError } from '../startup.js';
import type { KnownSchema } from './schema-catalog.js';

/** An earlier version of a subject, as a registry holds it. */
export interface WrittenVersion {
  id: number;
  schemaText: string;
}

/**
 * Throws, saying what to do, when `schema` cannot read the events written with `version` of its
 * subject. `setting` names where the versions live (the registry, DATA_DIR, DATABASE_URL).
 */
export function refuseUnreadable(setting: string, subject: string, schema: KnownSchema, version: WrittenVersion): void {
  try {
    schema.avroType.createResolver(avro.Type.forSchema(JSON.parse(version.schemaText) as avro.Schema));
  } catch (error) {
    throw new BackendUnavailableError(
      setting,
      `this build's schemas/${schema.path} cannot read the events of ${subject} written with its schema id ${version.id} (${(error as Error).message})`,
      "make the change compatible (give an added field a default, keep a field's type; `npm run -s schemas:check` names it), or run the build that wrote them",
    );
  }
}
