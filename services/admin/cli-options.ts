import type { TObject, TSchema } from '@sinclair/typebox';
import { CommandInputError } from '../../commands/command.js';
import { repeatedKey } from '../../platform/text/json-keys.js';

/** `entry_id` → `--entry-id`. */
export const flagName = (property: string) => `--${property.replace(/_/g, '-')}`;

function kindOf(schema: TSchema): string {
  if (schema.anyOf) return 'json';
  if (schema.type === 'array') return (schema.items as TSchema).type === 'string' ? 'list' : 'json';
  return String(schema.type);
}

/** How a property is written on the command line, for --help. */
export function flagSyntax(property: string, schema: TSchema): string {
  switch (kindOf(schema)) {
    case 'boolean':
      return `${flagName(property)} <true|false>`;
    case 'list':
      return `${flagName(property)} <a,b,...>`;
    case 'json':
    case 'object':
      return `${flagName(property)} <json>`;
    default:
      return `${flagName(property)} <value>`;
  }
}

/** Turns flag strings into the typed input object; the schema check comes after. */
export function inputFromFlags(schema: TObject, flags: Record<string, string | undefined>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [property, propertySchema] of Object.entries(schema.properties)) {
    const raw = flags[property];
    if (raw === undefined) continue;
    switch (kindOf(propertySchema)) {
      case 'integer':
      case 'number':
        input[property] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
        break;
      case 'boolean':
        input[property] = raw === 'true' ? true : raw === 'false' ? false : raw;
        break;
      case 'list':
        input[property] = raw === '' ? [] : raw.split(',').map((item) => item.trim());
        break;
      case 'json':
      case 'object':
        input[property] = parseJson(property, raw);
        break;
      default:
        input[property] = raw;
    }
  }
  return input;
}

/**
 * JSON text given for `field` (an input property, or the flag that carried the whole input),
 * parsed; a CommandInputError naming it when the text is not JSON, or gives a key twice
 * (JSON.parse would keep the last: the admin API refuses it the same way).
 */
export function parseJson(field: string, text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CommandInputError(field, `is not JSON: ${(error as Error).message}`);
  }
  const repeated = repeatedKey(text);
  if (repeated !== undefined) throw new CommandInputError(field, `gives ${JSON.stringify(repeated)} twice; give each field once`);
  return parsed;
}
