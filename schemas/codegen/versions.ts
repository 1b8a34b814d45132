import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { schemasRoot, type AvroRecordSchema, type SchemaFile } from '../files.js';

/**
 * Every version each event schema has had, oldest first, by full Avro name: a log keeps events
 * for good, so this build's schema of a type must read events written with any of them (Avro
 * schema resolution, as the codecs read). The registry checks a new version against the latest
 * only, at a process's start, and the embedded log not at all; this record lets
 * `npm run schemas:check` refuse the change before it is run anywhere.
 */
export const versionsPath = join(schemasRoot, 'versions.json');

export type RecordedVersions = Record<string, AvroRecordSchema[]>;

export function readVersions(path = versionsPath): RecordedVersions {
  return JSON.parse(readFileSync(path, 'utf8')) as RecordedVersions;
}

/** One line per version, so a new version is one added line. */
export function renderVersions(versions: RecordedVersions): string {
  const types = Object.entries(versions).map(([name, list]) => `  ${JSON.stringify(name)}: [\n${list.map((version) => `    ${JSON.stringify(version)}`).join(',\n')}\n  ]`);
  return `{\n${types.join(',\n')}\n}\n`;
}

/** A schema as it matters to reading: docs are left out, since editing one changes no event. */
export function withoutDocs<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withoutDocs) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'doc').map(([key, value]) => [key, withoutDocs(value)])) as T;
}

const sameSchema = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Why `reader` cannot read events written with `writer`, field by field where it can tell; undefined when it can. */
function whyUnreadable(reader: AvroRecordSchema, writer: AvroRecordSchema, missing = (name: string) => `field ${name} was added without a default`): string | undefined {
  try {
    avro.Type.forSchema(reader as avro.Schema).createResolver(avro.Type.forSchema(writer as avro.Schema));
    return undefined;
  } catch (error) {
    const reasons: string[] = [];
    for (const field of reader.fields) {
      const written = writer.fields.find((candidate) => candidate.name === field.name);
      if (!written) {
        if (field.default === undefined) reasons.push(missing(field.name));
        continue;
      }
      try {
        avro.Type.forSchema(field.type as avro.Schema).createResolver(avro.Type.forSchema(written.type as avro.Schema));
      } catch (fieldError) {
        reasons.push(`field ${field.name}: ${(fieldError as Error).message}`);
      }
    }
    return reasons.length > 0 ? reasons.join('; ') : (error as Error).message;
  }
}

/**
 * Each current schema that cannot read a recorded version of its type: which file, which version
 * and why; and each recorded type no file defines any more (its .avsc removed), whose events in
 * the log this build could not read at all.
 */
export function unreadableVersions(files: SchemaFile[], versions: RecordedVersions): string[] {
  const problems: string[] = [];
  const defined = new Set(files.map((file) => file.fullName));
  for (const [type, recorded] of Object.entries(versions)) {
    if (defined.has(type)) continue;
    problems.push(
      `no file in schemas/ defines ${type}, of which schemas/versions.json records ${recorded.length} version(s): its events stay in the log, and a build without its schema stops its projections at the first of them; restore its .avsc (a type no longer written keeps its file)`,
    );
  }
  for (const file of files) {
    for (const [index, version] of (versions[file.fullName] ?? []).entries()) {
      const why = whyUnreadable(withoutDocs(file.schema), version);
      if (why) problems.push(`schemas/${file.path} cannot read events written with version ${index + 1} of ${file.fullName}: ${why}`);
    }
  }
  return problems;
}

/**
 * Each current schema whose events the version before it cannot read (a field removed that had no
 * default, a type widened): not refused, since Avro promises only that new readers read old
 * events, but the build before cannot run beside it (a rolling deploy) or after it (a rollback),
 * so it is worth a warning.
 */
export function unreadableByPrevious(files: SchemaFile[], versions: RecordedVersions): string[] {
  const warnings: string[] = [];
  for (const file of files) {
    const current = withoutDocs(file.schema);
    const earlier = (versions[file.fullName] ?? []).filter((version) => !sameSchema(version, current));
    const before = earlier.at(-1);
    const why = before && whyUnreadable(before, current, (name) => `field ${name} was removed, and that version has no default for it`);
    if (why) {
      warnings.push(
        `warning: events written with schemas/${file.path} cannot be read by version ${earlier.length} of ${file.fullName} (${why}): once it is registered, a process of the build before that starts (a rollback, a restart while a deploy rolls) is refused, and one already running stops its projections at the first of them`,
      );
    }
  }
  return warnings;
}

/** The current schemas that are not their type's latest recorded version. */
export function unrecordedSchemas(files: SchemaFile[], versions: RecordedVersions): SchemaFile[] {
  return files.filter((file) => !sameSchema(versions[file.fullName]?.at(-1), withoutDocs(file.schema)));
}

/** The record with each current schema appended to its type's versions when it is not the latest. */
export function withCurrentVersions(files: SchemaFile[], versions: RecordedVersions): RecordedVersions {
  const next: RecordedVersions = { ...versions };
  for (const file of unrecordedSchemas(files, versions)) next[file.fullName] = [...(versions[file.fullName] ?? []), withoutDocs(file.schema)];
  return Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
