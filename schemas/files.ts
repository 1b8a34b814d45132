import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const schemasRoot = fileURLToPath(new URL('.', import.meta.url));

export interface SchemaFile {
  /** The topic that carries the event: the folder the file sits in. */
  topic: string;
  /** Path relative to schemas/. */
  path: string;
  /** Full Avro record name, namespace included. */
  fullName: string;
  schema: AvroRecordSchema;
}

export interface AvroRecordSchema {
  type: 'record';
  name: string;
  namespace?: string;
  doc?: string;
  fields: { name: string; type: unknown; doc?: string; default?: unknown }[];
}

/** Every event schema: one record per `.avsc` file, in `schemas/<topic>/`, sorted for stable output. */
export function listSchemaFiles(): SchemaFile[] {
  const files: SchemaFile[] = [];
  for (const topic of readdirSync(schemasRoot).sort()) {
    const dir = join(schemasRoot, topic);
    if (!statSync(dir).isDirectory() || ['codegen', 'generated', 'documents'].includes(topic)) continue;
    for (const entry of readdirSync(dir).sort()) {
      if (!entry.endsWith('.avsc')) continue;
      const schema = JSON.parse(readFileSync(join(dir, entry), 'utf8')) as AvroRecordSchema;
      const fullName = schema.namespace ? `${schema.namespace}.${schema.name}` : schema.name;
      files.push({ topic, path: relative(schemasRoot, join(dir, entry)), fullName, schema });
    }
  }
  return files;
}
