import avro from 'avsc';
import { listSchemaFiles, type SchemaFile } from '../../schemas/files.js';

export interface KnownSchema extends SchemaFile {
  avroType: avro.Type;
  /** Canonical JSON text sent to a registry. */
  text: string;
}

/** The event schemas of this build, parsed once, by full Avro name. */
export function loadSchemaCatalog(): Map<string, KnownSchema> {
  return new Map(
    listSchemaFiles().map((file) => [
      file.fullName,
      { ...file, avroType: avro.Type.forSchema(file.schema as avro.Schema), text: JSON.stringify(file.schema) },
    ]),
  );
}

/** Encodes after validating, with an error naming the offending field paths. */
export function encodeChecked(schema: KnownSchema, value: unknown): Buffer {
  const problems: string[] = [];
  schema.avroType.isValid(value, {
    errorHook: (path) => problems.push(path.join('.') || '(value)'),
  });
  if (problems.length > 0) {
    throw new Error(`${schema.fullName} value does not match its schema at: ${problems.join(', ')}`);
  }
  return schema.avroType.toBuffer(value);
}
