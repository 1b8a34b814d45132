import type { Static, TObject } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { firstSchemaError } from '../platform/validation/first-schema-error.js';
import { CommandInputError } from './command.js';
import { UNSTORABLE, unstorableText } from './unstorable-text.js';

/** JSON pointer `/targeting/0/geo` → `targeting[0].geo`, the form users read in messages. */
export function fieldPath(pointer: string): string {
  const parts = pointer.split('/').slice(1);
  if (parts.length === 0) return '(input)';
  return parts.map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

/**
 * A map entry's path whose name is not one of the map's: the name quoted as JSON when it is not
 * a plain one, so a NUL, a lone surrogate or a dot in it is shown, not written out raw.
 */
function entryPath(pointer: string): string {
  const at = pointer.lastIndexOf('/');
  const name = pointer.slice(at + 1).replace(/~1/g, '/').replace(/~0/g, '~');
  return `${fieldPath(pointer.slice(0, at))}.${/^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name)}`;
}

/** Checks input against a closed schema; throws CommandInputError naming the first bad field. */
export function validateInput<S extends TObject>(schema: S, input: unknown): Static<S> {
  const first = firstSchemaError(schema, input);
  if (!first) {
    const unstorable = unstorableText(input);
    if (unstorable) throw new CommandInputError(unstorable.path, `contains ${UNSTORABLE[unstorable.kind]}; remove it`);
    return input as Static<S>;
  }
  if (first.type === ValueErrorType.ObjectAdditionalProperties) {
    // A map's entry is not a field: its name is what is wrong.
    const keys = first.schema.keyDescription;
    if (typeof keys === 'string') throw new CommandInputError(entryPath(first.path), `is not a valid name: names are ${keys}`);
    throw new CommandInputError(fieldPath(first.path), 'is not a known field');
  }
  if (first.type === ValueErrorType.ObjectRequiredProperty) throw new CommandInputError(fieldPath(first.path), 'is required');
  // A described field says what to send rather than quoting its pattern.
  const description = first.schema.description;
  if (first.type === ValueErrorType.StringPattern && typeof description === 'string') {
    throw new CommandInputError(fieldPath(first.path), `must be ${description}; got ${JSON.stringify(String(first.value).slice(0, 60))}`);
  }
  // Only the first letter: the rest may quote a pattern, whose case is its meaning ('^[A-Z]{3}$').
  throw new CommandInputError(fieldPath(first.path), first.message.charAt(0).toLowerCase() + first.message.slice(1));
}
