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

/**
 * Characters a name shown to operators and partners never holds: C0 and C1 controls (a line
 * break, an escape that recolours a terminal) and UAX #9's bidirectional formatting characters:
 * the embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the implicit marks
 * (ALM U+061C, LRM U+200E, RLM U+200F), which make text read differently from what it is.
 */
const INVISIBLE_CONTROLS = '\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';

/**
 * Format characters with no glyph (soft hyphen, zero-width space, joiners, word joiner and
 * invisible operators, BOM): allowed inside a name (a joiner belongs to an emoji or a script), but
 * they are not the visible character a name needs, which `\S` alone would take them for.
 */
const ZERO_WIDTH = '\\u00AD\\u180E\\u200B-\\u200D\\u2060-\\u2064\\uFEFF';

/** A name or label: at least one visible character, none of INVISIBLE_CONTROLS. */
export const displayText = (description: string, maxLength = 200) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: `^(?=[^${INVISIBLE_CONTROLS}]*[^\\s${ZERO_WIDTH}${INVISIBLE_CONTROLS}])[^${INVISIBLE_CONTROLS}]*$`,
    description: `${description} (visible text: not blank, no control or bidirectional formatting characters)`,
  });

/** A run of an address's characters: no @, spaces, controls or bidirectional formatting characters. */
const ADDRESS_PART = `[^\\s@${INVISIBLE_CONTROLS}]+`;

/** An email address: something@domain.tld, with no spaces, controls or bidirectional formatting characters. */
export const emailAddress = (description: string) =>
  Type.String({
    maxLength: 254,
    pattern: `^${ADDRESS_PART}@${ADDRESS_PART}\\.${ADDRESS_PART}$`,
    description: `${description} (name@domain, no spaces or control characters)`,
  });
