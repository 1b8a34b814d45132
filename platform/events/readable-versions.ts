import avro from 'avsc';
import { BackendUnavailableError } from '../startup.js';
import type { KnownSchema } from './schema-catalog.js';

/** A version of a subject, as a registry holds it (`version`: its number there, where it has one). */
export interface WrittenVersion {
  id: number;
  schemaText: string;
  version?: number;
}

const named = (version: WrittenVersion) => (version.version === undefined ? `schema id ${version.id}` : `version ${version.version} (schema id ${version.id})`);

/** Why `schema` cannot read events written with `version`; undefined when it can. */
function whyUnreadable(schema: KnownSchema, version: WrittenVersion): string | undefined {
  try {
    schema.avroType.createResolver(avro.Type.forSchema(JSON.parse(version.schemaText) as avro.Schema));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Throws, saying what to do, when `schema` cannot read the events written with `version` of its
 * subject, one registered before this build's own. `setting` names where the versions live (the
 * registry, DATA_DIR, DATABASE_URL).
 */
export function refuseUnreadable(setting: string, subject: string, schema: KnownSchema, version: WrittenVersion): void {
  const why = whyUnreadable(schema, version);
  if (why === undefined) return;
  throw new BackendUnavailableError(
    setting,
    `this build's schemas/${schema.path} cannot read the events of ${subject} written with its ${named(version)} (${why})`,
    "make the change compatible (give an added field a default, keep a field's type; `npm run -s schemas:check` names it), or run the build that wrote them",
  );
}

/**
 * Throws when `schema`, registered as `ours`, cannot read `later`, a version of its subject a newer
 * build registered after it: this build (a rollback, an instance of the build before in a rolling
 * deploy) would start, then stop each projection of that topic at the first such event. Making
 * this build's schema compatible is no way out here; `ways` says what is (the registry's differs
 * from the embedded log's).
 */
export function refuseUnreadableLater(setting: string, subject: string, schema: KnownSchema, ours: WrittenVersion, later: WrittenVersion, ways: string): void {
  const why = whyUnreadable(schema, later);
  if (why === undefined) return;
  throw new BackendUnavailableError(
    setting,
    `this build's schemas/${schema.path} (${named(ours)} of ${subject}) cannot read the events written with ${named(later)}, which a newer build registered after it (${why}), so its projections would stop at the first of them`,
    ways,
  );
}
