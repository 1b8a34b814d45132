import { describe, expect, it } from 'vitest';
import { CommandInputError } from '../../commands/command.js';
import { adminCommands } from '../../commands/index.js';
import { validateInput } from '../../commands/validate.js';

interface Schema {
  type?: string;
  maxLength?: number;
  maxItems?: number;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
}

/** A pattern that repeats nothing without end (`*`, `+` or `{n,}` outside a character class). */
const boundedPattern = (pattern: string) => !/[*+]|\{\d+,\}/.test(pattern.replace(/\\./g, '').replace(/\[[^\]]*\]/g, ''));

/** A string is bounded by its length, its values, or its pattern. */
const boundedString = (schema: Schema) =>
  schema.maxLength !== undefined || schema.enum !== undefined || schema.const !== undefined || (schema.pattern !== undefined && boundedPattern(schema.pattern));

/** The paths in `schema` of strings and lists without a bound. */
function unbounded(schema: Schema | undefined, path: string): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const found: string[] = [];
  if (schema.type === 'string' && !boundedString(schema)) found.push(path);
  if (schema.type === 'array' && schema.maxItems === undefined) found.push(`${path} (no maxItems)`);
  for (const [name, property] of Object.entries(schema.properties ?? {})) found.push(...unbounded(property, `${path}.${name}`));
  found.push(...unbounded(schema.items, `${path}[]`));
  for (const alternatives of [schema.anyOf, schema.oneOf, schema.allOf]) for (const [index, each] of (alternatives ?? []).entries()) found.push(...unbounded(each, `${path}|${index}`));
  if (typeof schema.additionalProperties === 'object') found.push(...unbounded(schema.additionalProperties, `${path}.*`));
  for (const [pattern, each] of Object.entries(schema.patternProperties ?? {})) found.push(...unbounded(each, `${path}.${pattern}`));
  return found;
}

/** The paths in `schema` of objects that take names they do not declare, unchecked. */
function open(schema: Schema | undefined, path: string): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const found: string[] = [];
  if (schema.type === 'object' && schema.additionalProperties === undefined) found.push(path);
  for (const [name, property] of Object.entries(schema.properties ?? {})) found.push(...open(property, `${path}.${name}`));
  for (const [pattern, each] of Object.entries(schema.patternProperties ?? {})) found.push(...open(each, `${path}.${pattern}`));
  found.push(...open(schema.items, `${path}[]`));
  for (const alternatives of [schema.anyOf, schema.oneOf, schema.allOf]) for (const [index, each] of (alternatives ?? []).entries()) found.push(...open(each, `${path}|${index}`));
  if (typeof schema.additionalProperties === 'object') found.push(...open(schema.additionalProperties, `${path}.*`));
  return found;
}

describe('admin command input', () => {
  // An unbounded field fails late: as a message the log refuses (Kafka's size limit), not as the
  // field named with exit code 2.
  it('bounds every string and list of every command, so oversized input is refused naming its field', () => {
    expect(adminCommands.flatMap((command) => unbounded(command.input as Schema, command.name))).toEqual([]);
  });

  // An open object lets any value through under a name it does not declare, to fail later as
  // the event schema's refusal: a backend error (503, exit 4) for what is bad input.
  it('closes every object of every command, maps included: a name outside a map\'s pattern is refused', () => {
    expect(adminCommands.flatMap((command) => open(command.input as Schema, command.name))).toEqual([]);
  });

  it.each([
    ['credentials', { 'bad key!': 123 }, 'internal.credentials."bad key!"'],
    ['credentials', { 'bad key!': 'x' }, 'internal.credentials."bad key!"'],
    ['recommendation_context', { '': [1, 2] }, 'internal.recommendation_context.""'],
    ['credentials', { 'a/b~c': 'x' }, 'internal.credentials."a/b~c"'],
  ])('offer:upsert refuses a %s name outside the names allowed, naming it', (map, entries, field) => {
    const upsert = adminCommands.find((command) => command.name === 'offer:upsert')!;
    const input = { partner_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', kind: 'local', status: 'paused', internal: { [map]: entries } };
    let refused: unknown;
    try {
      validateInput(upsert.input, input);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(CommandInputError);
    expect(refused).toMatchObject({ field, message: `${field}: is not a valid name: names are 1 to 64 letters, digits, _, . or -` });
  });

  it('finds an open object and a map whose values are unbounded', () => {
    expect(open({ type: 'object', properties: { labels: { type: 'object', patternProperties: { '^a$': { type: 'string' } } } }, additionalProperties: false }, 'c')).toEqual(['c.labels']);
    expect(unbounded({ type: 'object', patternProperties: { '^a$': { type: 'string' } } }, 'm')).toEqual(['m.^a$']);
  });

  it('finds an unbounded field', () => {
    expect(unbounded({ type: 'object', properties: { tags: { type: 'array', maxItems: 2, items: { type: 'string' } }, code: { type: 'string', pattern: '^[a-z]+$' } } }, 'c')).toEqual(['c.tags[]', 'c.code']);
    expect(unbounded({ type: 'string', pattern: '^[+-]\\d{2}\\+?$' }, 'x')).toEqual([]);
    expect(unbounded({ type: 'array', items: { type: 'string', maxLength: 1 } }, 'y')).toEqual(['y (no maxItems)']);
  });
});
