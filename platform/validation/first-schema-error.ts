import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { atMostCharacters } from '../text/character-count.js';

/**
 * The first way `value` breaks `schema`, as TypeBox reports it, except that a string's maxLength
 * counts characters (code points), as JSON Schema and our documents say, not UTF-16 units: TypeBox
 * counts an emoji twice. (A minLength refusal stands either way: a string never has more
 * characters than units.)
 */
export function firstSchemaError(schema: TSchema, value: unknown): ValueError | undefined {
  // Most values are valid: a compiled check says so without walking the errors. It counts UTF-16
  // units, so a value it passes has no string over its limit in characters either.
  if (compiledCheck(schema).Check(value)) return undefined;
  for (const error of Value.Errors(schema, value)) {
    const limit = error.schema.maxLength;
    const withinInCharacters = error.type === ValueErrorType.StringMaxLength && typeof error.value === 'string' && typeof limit === 'number' && atMostCharacters(error.value, limit);
    if (!withinInCharacters) return error;
  }
  return undefined;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function compiledCheck(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}
