import { Type } from '@sinclair/typebox';
import { CANONICAL_UUID_PATTERN } from '../platform/ids/uuid-text.js';

/** Input pieces the commands of several topics share. */

/** Canonical ids only: lowercase, hyphenated, no braces. Minted ids are UUIDv7. */

export const canonicalUuid = (description: string) =>
  Type.String({ pattern: CANONICAL_UUID_PATTERN, description: `${description} (canonical lowercase UUID)` });

export const httpUrl = (description: string) =>
  Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2000, description: `${description} (absolute http or https URL)` });

/** A string from a fixed list; a plain string schema so the CLI takes it as a bare flag value. */
export const oneOf = (values: readonly string[], description: string) =>
  Type.String({ pattern: `^(${values.join('|')})$`, description: `${description}: ${values.join(', ')}` });
