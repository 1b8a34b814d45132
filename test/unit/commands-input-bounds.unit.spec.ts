import { describe, expect, it } from 'vitest';
import { adminCommands } from '../../commands/index.js';

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
  return found;
}

describe('admin command input', () => {
  // An unbounded field fails late: as a message the log refuses (Kafka's size limit), not as the
  // field named with exit code 2.
  it('bounds every string and list of every command, so oversized input is refused naming its field', () => {
    expect(adminCommands.flatMap((command) => unbounded(command.input as Schema, command.name))).toEqual([]);
  });

  it('finds an unbounded field', () => {
    expect(unbounded({ type: 'object', properties: { tags: { type: 'array', maxItems: 2, items: { type: 'string' } }, code: { type: 'string', pattern: '^[a-z]+$' } } }, 'c')).toEqual(['c.tags[]', 'c.code']);
    expect(unbounded({ type: 'string', pattern: '^[+-]\\d{2}\\+?$' }, 'x')).toEqual([]);
    expect(unbounded({ type: 'array', items: { type: 'string', maxLength: 1 } }, 'y')).toEqual(['y (no maxItems)']);
  });
});
