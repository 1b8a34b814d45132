import type { Static, TObject } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { AdminInputError } from './command.js';

/** JSON pointer `/targeting/0/geo` → `targeting[0].geo`, the form users read in messages. */
export function fieldPath(pointer: string): string {
  const parts = pointer.split('/').slice(1);
  if (parts.length === 0) return '(input)';
  return parts.map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

/** Checks input against a closed schema; throws AdminInputError naming the first bad field. */
export function validateInput<S extends TObject>(schema: S, input: unknown): Static<S> {
  const first = Value.Errors(schema, input).First();
  if (!first) return input as Static<S>;
  // An unknown property is reported at the object; name the property itself.
  if (first.type === ValueErrorType.ObjectAdditionalProperties && input && typeof input === 'object') {
    const parent = first.path.split('/').slice(1).reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], input);
    const extra = Object.keys(parent as object).find((key) => !(key in (first.schema as TObject).properties));
    if (extra) throw new AdminInputError(fieldPath(`${first.path}/${extra}`), 'is not a known field');
  }
  throw new AdminInputError(fieldPath(first.path), first.message.toLowerCase());
}
