import { SHORT_CODE, STATIC_TOKEN, shapeOfCode } from '../../projections/offers/links/parse-link.js';
import { CANONICAL_UUID } from '../../platform/ids/uuid-text.js';
import { CURRENCY_CODE, isKnownCurrency } from '../../schemas/documents/currency.js';
import { DECIMAL, canonicalDecimal } from './payout.js';
import { atMostCharacters } from '../../platform/text/character-count.js';
import { repeatedKey } from '../../platform/text/json-keys.js';

/**
 * The fields of a partner's postback, read from the current contract's JSON body or from the
 * compatibility routes' query and form parameters. Pure: the route does the I/O, the command the
 * attribution. Every rejection names its field; `reason` is the stable code, `message` is for people.
 */

export const ATTRIBUTION_FIELDS = ['svc_click_id', 'svc_tracking_id', 'offer_instance_id'] as const;
export const IDENTITY_FIELDS = ['event_id', 'order_id', 'partner_txn_id'] as const;

export interface PostbackFields {
  event_name: string;
  /** Canonical lowercase UUID. */
  svc_click_id?: string;
  /** A tracked link's id: 8-character short code, root instance UUID, or `st_` token. */
  svc_tracking_id?: string;
  /** Canonical lowercase UUID. */
  offer_instance_id?: string;
  event_id?: string;
  order_id?: string;
  partner_txn_id?: string;
  /** Canonical decimal (no trailing fraction zeros); present exactly when currency is. */
  amount?: string;
  /** Uppercase ISO 4217; present exactly when amount is. */
  currency?: string;
}

export type FieldsResult =
  | { ok: true; fields: PostbackFields }
  | { ok: false; reason: 'invalid_payload' | 'missing_identity' | 'missing_attribution'; field?: string; message: string };

export type FieldName = keyof PostbackFields;

/** JSON Schema string keywords: the same rule as `read`, as the API document states it. */
interface StringKeywords {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  anyOf?: StringKeywords[];
}

interface FieldRule {
  /** What the value must be, completing "must be …". */
  expected: string;
  schema: StringKeywords;
  /** The value in canonical form, or undefined when it is not acceptable. */
  read(value: string): string | undefined;
}

// No control characters or lone surrogates (which UTF-8 cannot carry, so the logged value would differ).
// Not blank either: an event name or identity of spaces only is a partner's template left empty.
const PRINTABLE = /^[^\p{Cc}\p{Cs}]*[^\s\p{Cc}\p{Cs}][^\p{Cc}\p{Cs}]*$/u;
const text = (max: number): FieldRule => ({
  expected: `a string of 1 to ${max} characters, not only spaces, without control characters or unpaired surrogates (a \\ud800-\\udfff escape alone)`,
  schema: { minLength: 1, maxLength: max, pattern: PRINTABLE.source },
  read: (value) => (atMostCharacters(value, max) && PRINTABLE.test(value) ? value : undefined),
});
const uuid: FieldRule = {
  expected: 'a canonical lowercase UUID such as "0190f5a2-7b3c-7d4e-8f60-1a2b3c4d5e6f"',
  schema: { pattern: CANONICAL_UUID.source },
  read: (value) => (CANONICAL_UUID.test(value) ? value : undefined),
};
const MAX_STATIC_TOKEN = 'st_'.length + 64;
const trackingId: FieldRule = {
  expected: 'a tracked link id: 8 letters or digits, a canonical lowercase UUID, or st_ followed by 1 to 64 letters, digits, _ or -',
  schema: { anyOf: [{ pattern: SHORT_CODE.source }, { pattern: CANONICAL_UUID.source }, { pattern: STATIC_TOKEN.source, maxLength: MAX_STATIC_TOKEN }] },
  read: (value) => {
    const shape = shapeOfCode(value);
    return shape !== undefined && (shape !== 'static_path' || value.length <= MAX_STATIC_TOKEN) ? value : undefined;
  },
};

/** In this order fields are checked, so the first problem reported is always the same one. */
export const FIELD_RULES: Readonly<Record<FieldName, Readonly<FieldRule>>> = {
  event_name: text(100),
  svc_click_id: uuid,
  svc_tracking_id: trackingId,
  offer_instance_id: uuid,
  event_id: text(200),
  order_id: text(200),
  partner_txn_id: text(200),
  amount: {
    expected: 'a decimal string such as "12.50" (no sign or exponent, at most 15 digits before the point and 8 after)',
    schema: { pattern: DECIMAL.source },
    read: canonicalDecimal,
  },
  currency: {
    expected: 'an uppercase ISO 4217 currency code such as "USD"',
    schema: { pattern: CURRENCY_CODE.source },
    read: (value) => (isKnownCurrency(value) ? value : undefined),
  },
};
export const FIELD_NAMES = Object.keys(FIELD_RULES) as FieldName[];

type Rejection = Extract<FieldsResult, { ok: false }>;
const invalid = (field: string | undefined, message: string): Rejection =>
  field === undefined ? { ok: false, reason: 'invalid_payload', message } : { ok: false, reason: 'invalid_payload', field, message: `${field}: ${message}` };

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A key as messages show it: plain names as they are, others quoted, long ones cut. */
function keyName(key: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && key.length <= 100) return key;
  return JSON.stringify(key.length > 100 ? `${key.slice(0, 100)}…` : key);
}

/** The rules both contracts share: formats, event_name, amount with currency, attribution, identity. */
export function checkFields(values: Partial<Record<FieldName, unknown>>): FieldsResult {
  const read: Partial<Record<FieldName, string>> = {};
  for (const name of FIELD_NAMES) {
    const value = values[name];
    if (value === undefined) continue;
    const rule = FIELD_RULES[name];
    if (typeof value !== 'string') return invalid(name, `must be ${rule.expected}, not ${kindOf(value)}`);
    const canonical = rule.read(value);
    if (canonical === undefined) return invalid(name, `must be ${rule.expected}`);
    read[name] = canonical;
  }
  const { event_name, amount, currency } = read;
  if (event_name === undefined) return invalid('event_name', 'is required: the event the partner reports, mapped to a goal of the offer');
  if (amount !== undefined && currency === undefined) return invalid('currency', 'is required with amount: an uppercase ISO 4217 currency code such as "USD"');
  if (currency !== undefined && amount === undefined) return invalid('amount', 'is required with currency: a decimal string such as "12.50"');
  if (!ATTRIBUTION_FIELDS.some((name) => read[name] !== undefined)) {
    return { ok: false, reason: 'missing_attribution', message: `the postback names no attribution: send at least one of ${ATTRIBUTION_FIELDS.join(', ')}` };
  }
  if (!IDENTITY_FIELDS.some((name) => read[name] !== undefined)) {
    return { ok: false, reason: 'missing_identity', message: `the postback has no business identity: send at least one of ${IDENTITY_FIELDS.join(', ')}` };
  }
  return { ok: true, fields: { ...read, event_name } };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Current contract: the raw JSON body. A closed object of string values: anything else (unknown
 * or prototype keys, numbers, null, non-objects, invalid UTF-8 or JSON, an empty body) is
 * invalid_payload. So is a key given twice: JSON.parse would keep the last value, and two values
 * of one field (an event_id, an amount) leave the conversion ambiguous, as the compatibility
 * routes' repeated parameters do.
 */
export function parseCurrentBody(raw: string | Buffer): FieldsResult {
  let body: string;
  try {
    body = typeof raw === 'string' ? raw : UTF8.decode(raw);
  } catch {
    return invalid(undefined, 'the body is not valid UTF-8');
  }
  if (body.trim() === '') return invalid(undefined, 'the body is empty; send a JSON object');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return invalid(undefined, 'the body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return invalid(undefined, `the body must be a JSON object of string fields, not ${kindOf(parsed)}`);
  }
  // JSON.parse makes "__proto__" an own key, so prototype keys are refused here like any unknown one.
  const unknown = Object.keys(parsed).find((key) => !Object.hasOwn(FIELD_RULES, key));
  if (unknown !== undefined) return invalid(keyName(unknown), `is not a field of the postback body; it takes ${FIELD_NAMES.join(', ')}`);
  const repeated = repeatedKey(body);
  if (repeated !== undefined) return invalid(repeated, 'is given twice; send each field once');
  return checkFields(parsed as Record<string, unknown>);
}

/** A template placeholder the partner's system left unexpanded: `{click_id}`, `{{order_id}}`. */
const MACRO = /^\{.*\}$/s;

/**
 * Compatibility routes (GET query string, POST form body), values as the query-string parser gives
 * them (string or string[]). Lenient where existing integrations need it: unknown parameters are
 * ignored, and an empty value or an unexpanded macro counts as absent. A known parameter given
 * twice is ambiguous, so invalid_payload. Otherwise the rules of the current contract.
 *
 * No aliases (`click_id`, `tracking_id`): many partner systems send their own `click_id`, which an
 * alias would misread as ours and reject or misattribute; ignoring it is the safe reading.
 */
export function parseCompatParams(params: Record<string, unknown>): FieldsResult {
  const values: Partial<Record<FieldName, unknown>> = {};
  for (const name of FIELD_NAMES) {
    if (!Object.hasOwn(params, name)) continue;
    let value = params[name];
    if (Array.isArray(value)) {
      if (value.length > 1) return invalid(name, `is given ${value.length} times; send it once`);
      value = value[0];
    }
    if (value === '' || (typeof value === 'string' && MACRO.test(value))) continue;
    values[name] = value;
  }
  return checkFields(values);
}
