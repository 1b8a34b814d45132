import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { atMostCharacters } from '../text/character-count.js';

/**
 * The first way `value` breaks `schema`, as TypeBox reports it, except that a string's maxLength
 * counts characters (code points), as JSON Schema and our documents say, not UTF-16 units: TypeBox
 * counts an emoji twice. (A minLength refusal stands either way: a string never has more
 * characters than units.)
 */
export function firstSchemaError(schema: TSchema, value: unknown): ValueError | undefined {
  for (const error of Value.Errors(schema, value)) {
    const limit = error.schema.maxLength;
    const withinInCharacters = error.type === ValueErrorType.StringMaxLength && typeof error.value === 'string' && typeof limit === 'number' && atMostCharacters(error.value, limit);
    if (!withinInCharacters) return error;
  }
  return undefined;
}
