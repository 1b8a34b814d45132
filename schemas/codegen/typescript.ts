import type { AvroRecordSchema, SchemaFile } from '../files.js';

/**
 * Turns Avro record schemas into TypeScript declarations, so event types have one source of truth.
 * Covers what our schemas use: primitives, logical types on primitives, records, enums, arrays,
 * maps, unions and fixed.
 */
const primitives: Record<string, string> = {
  null: 'null',
  boolean: 'boolean',
  int: 'number',
  long: 'number',
  float: 'number',
  double: 'number',
  bytes: 'Buffer',
  string: 'string',
};

interface Emitter {
  declarations: Map<string, string>;
  namespace?: string;
}

function qualify(name: string, namespace?: string) {
  return name.includes('.') || !namespace ? name : `${namespace}.${name}`;
}

function shortName(fullName: string) {
  return fullName.split('.').pop()!;
}

function typeOf(avro: unknown, emitter: Emitter): string {
  if (typeof avro === 'string') {
    return primitives[avro] ?? shortName(qualify(avro, emitter.namespace));
  }
  if (Array.isArray(avro)) return avro.map((member) => typeOf(member, emitter)).join(' | ');
  const schema = avro as { type: string; [key: string]: unknown };
  switch (schema.type) {
    case 'record':
      return emitRecord(schema as unknown as AvroRecordSchema, emitter);
    case 'enum': {
      const name = shortName(qualify(schema.name as string, emitter.namespace));
      const symbols = (schema.symbols as string[]).map((symbol) => `'${symbol}'`).join(' | ');
      emitter.declarations.set(name, `export type ${name} = ${symbols};`);
      return name;
    }
    case 'array':
      return `Array<${typeOf(schema.items, emitter)}>`;
    case 'map':
      return `Record<string, ${typeOf(schema.values, emitter)}>`;
    case 'fixed':
      return 'Buffer';
    default:
      return typeOf(schema.type, emitter);
  }
}

function emitRecord(schema: AvroRecordSchema, emitter: Emitter): string {
  const namespace = schema.namespace ?? emitter.namespace;
  const name = shortName(qualify(schema.name, namespace));
  const inner: Emitter = { declarations: emitter.declarations, namespace };
  const lines = schema.fields.map((field) => {
    const doc = field.doc ? `  /** ${field.doc.replace(/\*\//g, '*\\/')} */\n` : '';
    return `${doc}  ${field.name}: ${typeOf(field.type, inner)};`;
  });
  const doc = schema.doc ? `/** ${schema.doc} */\n` : '';
  emitter.declarations.set(name, `${doc}export interface ${name} {\n${lines.join('\n')}\n}`);
  return name;
}

export function renderTypes(files: SchemaFile[]): string {
  const emitter: Emitter = { declarations: new Map() };
  for (const file of files) emitRecord(file.schema, emitter);
  const names = files.map((file) => [file.fullName, shortName(file.fullName), file.topic, file.path] as const);
  return [
    '// Generated from schemas/<topic>/*.avsc by `npm run schemas:generate`. Do not edit by hand;',
    '// `npm run schemas:check` (and the test suite) fails when this file is stale.',
    '',
    ...emitter.declarations.values(),
    '',
    '/** Full Avro name of every event type, by short name. */',
    'export const EventType = {',
    ...names.map(([full, short]) => `  ${short}: '${full}',`),
    '} as const;',
    '',
    '/** The value type of each event, by full Avro name. */',
    'export interface EventValues {',
    ...names.map(([full, short]) => `  '${full}': ${short};`),
    '}',
    '',
    '/** The topic that carries each event type. */',
    'export const eventTopic = {',
    ...names.map(([full, , topic]) => `  '${full}': '${topic}',`),
    '} as const;',
    '',
    'export type EventTypeName = keyof EventValues;',
    '',
  ].join('\n');
}
