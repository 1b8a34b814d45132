import { Type, type Static } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { firstSchemaError } from '../../../../platform/validation/first-schema-error.js';
import { badRequest } from '../../../../platform/http/errors.js';
import { fieldPath } from '../../../../platform/text/field-path.js';
import { UNSTORABLE, unstorableText } from '../../../../commands/unstorable-text.js';

/**
 * The body of `POST /v1/offers/query`, closed at every level: the caller's location never comes
 * from the body (no coordinates, country or `location_ids`), only from trusted provider headers.
 */
export const MAX_LIMIT = 10;
export const DEFAULT_LIMIT = 3;
const MAX_CATEGORIES = 10;
const MAX_INTENT = 200;

const closed = { additionalProperties: false } as const;

/**
 * A well-formed BCP 47 language tag (RFC 5646, section 2.1), letters in any case: language with
 * extlangs, script, region, variants, extensions (`en-US-u-ca-gregory`) and private use, a
 * private-use tag alone (`x-whatever`), or one of the grandfathered tags the grammar lists.
 */
const ALNUM = '[A-Za-z0-9]';
const LANGTAG =
  `(?:[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})` + // language, extlangs
  `(?:-[A-Za-z]{4})?` + // script
  `(?:-(?:[A-Za-z]{2}|[0-9]{3}))?` + // region
  `(?:-(?:${ALNUM}{5,8}|[0-9]${ALNUM}{3}))*` + // variants
  `(?:-[0-9A-WYZa-wyz](?:-${ALNUM}{2,8})+)*` + // extensions
  `(?:-[Xx](?:-${ALNUM}{1,8})+)?`; // private use
const PRIVATE_USE = `[Xx](?:-${ALNUM}{1,8})+`;
const GRANDFATHERED = [
  'en-GB-oed', 'i-ami', 'i-bnn', 'i-default', 'i-enochian', 'i-hak', 'i-klingon', 'i-lux', 'i-mingo', 'i-navajo', 'i-pwn', 'i-tao', 'i-tay', 'i-tsu',
  'sgn-BE-FR', 'sgn-BE-NL', 'sgn-CH-DE',
].map((tag) => tag.replace(/[a-z]/gi, (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`));
const LANGUAGE_TAG = `^(?:${LANGTAG}|${PRIVATE_USE}|${GRANDFATHERED.join('|')})$`;

const queryContext = Type.Object(
  {
    intent: Type.Optional(Type.String({ maxLength: MAX_INTENT, description: 'short free text: what the user is after' })),
    locale: Type.Optional(Type.String({ pattern: LANGUAGE_TAG, maxLength: 100, description: 'BCP 47 language tag (RFC 5646), e.g. en, pt-BR or en-US-u-ca-gregory' })),
    categories: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: MAX_CATEGORIES, description: 'category ids the placement prefers; ranks matching offers first' }),
    ),
  },
  { ...closed, description: 'closed request context' },
);

export const queryBody = Type.Object(
  {
    placement_id: Type.Optional(
      Type.String({ pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$', description: 'an active placement of the calling application; without it the Query is served anonymously through the default placement to the default application, whose cards the caller\'s key does not find' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `cards wanted, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})` })),
    context: Type.Optional(queryContext),
  },
  closed,
);

export interface QueryRequest {
  /** Canonical lowercase, when given. */
  placement_id?: string;
  limit: number;
  context: Static<typeof queryContext>;
}

/** What each declared field must be, for messages that say how to fix it. */
const EXPECTED: Record<string, string> = {
  '': 'the body must be a JSON object with optional placement_id, limit and context',
  placement_id: 'must be a UUID (an active placement of the calling application)',
  limit: `must be an integer from 1 to ${MAX_LIMIT}`,
  context: 'must be an object with optional intent, locale and categories',
  'context.intent': `must be a string of at most ${MAX_INTENT} characters`,
  'context.locale': 'must be a BCP 47 language tag such as en or pt-BR',
  'context.categories': `must be an array of at most ${MAX_CATEGORIES} category ids`,
  'context.categories[]': 'must be a category id (a string of 1 to 200 characters)',
};

const KNOWN: Record<string, string> = {
  '': 'the body takes placement_id, limit and context',
  context: 'context takes intent, locale and categories; a location is never sent in the body',
};

/** A JSON pointer into `input` → its parts, positions in arrays as numbers (fieldPath shows them so). */
function pathParts(pointer: string, input: unknown): (string | number)[] {
  if (pointer === '') return [];
  const parts: (string | number)[] = [];
  let at: unknown = input;
  for (const escaped of pointer.slice(1).split('/')) {
    const part = escaped.replace(/~1/g, '/').replace(/~0/g, '~');
    parts.push(Array.isArray(at) ? Number(part) : part);
    at = at !== null && typeof at === 'object' && Object.hasOwn(at, part) ? (at as Record<string, unknown>)[part] : undefined;
  }
  return parts;
}

/** The field's schema path: array indexes folded to `[]`. */
const schemaPath = (field: string) => field.replace(/\[\d+\]/g, '[]');

/**
 * The request, or 400 BAD_REQUEST whose message starts with the offending field (and
 * `extra.field`): an undeclared field (`context.user_profile`), or a declared one with a wrong
 * value, or a context text holding what the service never takes as text (a NUL, a lone
 * surrogate: nothing is stored from it, but a serve's events and logs are text too). A missing
 * body (no Content-Type, no bytes) is the empty request.
 */
export function parseQueryBody(body: unknown): QueryRequest {
  const input = body === undefined ? {} : body;
  const first = firstSchemaError(queryBody, input);
  if (first) {
    const parts = pathParts(first.path, input);
    const field = fieldPath(parts);
    if (first.type === ValueErrorType.ObjectAdditionalProperties) {
      const parent = fieldPath(parts.slice(0, -1));
      throw badRequest(`${field} is not a known field; ${KNOWN[parent] ?? 'remove it'}`, { field });
    }
    const expected = EXPECTED[schemaPath(field)] ?? 'is not valid';
    throw badRequest(field === '' ? expected : `${field} ${expected}`, { field: field === '' ? '(body)' : field });
  }
  const valid = input as Static<typeof queryBody>;
  const unstorable = valid.context === undefined ? undefined : unstorableText(valid.context, 'context');
  if (unstorable) throw badRequest(`${unstorable.path} contains ${UNSTORABLE[unstorable.kind]}; remove it`, { field: unstorable.path });
  return {
    ...(valid.placement_id !== undefined ? { placement_id: valid.placement_id.toLowerCase() } : {}),
    limit: valid.limit ?? DEFAULT_LIMIT,
    context: valid.context ?? {},
  };
}
