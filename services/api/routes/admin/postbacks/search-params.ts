import { characterCount } from '../../../../../platform/text/character-count.js';
import { isEntryId } from '../../../../../platform/diagnostics/bounded-log.js';
import { instantOf, millisecondsOf, offsetMinutesOf } from '../../../../../platform/time/rfc3339.js';
import { CANONICAL_UUID } from '../../../../../platform/ids/uuid-text.js';
import { DECISIONS, IDENTITY_KINDS, type LogCursor, type PostbackLogFilter } from '../../../../../projections/ledger/queries.js';

/** The search form's fields, as the page's query string carries them. */
export const SEARCH_FIELDS = ['correlation_id', 'partner_id', 'identity', 'identity_kind', 'click_id', 'instance_id', 'from', 'to', 'decision', 'limit', 'after', 'before'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
export type SearchForm = Record<SearchField, string>;

/** The decision filter's extra choice: postbacks refused before the log (the diagnostics store). */
export const REFUSED = 'refused';
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;
/** Partners' identity values are at most this many characters (event_id, order_id, partner_txn_id). */
export const MAX_IDENTITY_CHARACTERS = 200;

export interface Search {
  filter: PostbackLogFilter;
  /** List the refusals kept outside the ledger instead of the log. */
  refused: boolean;
  page: { after?: string; before?: string; limit: number };
}

export interface SearchError {
  field: SearchField;
  message: string;
}

const TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/i;
const LOG_CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)~([0-9a-f-]{36})$/;
const CONTROL = /\p{Cc}/u;

/** An instant from the form (no zone: UTC) or RFC 3339, as an ISO string; undefined if it is not one. */
export function parseInstant(text: string): string | undefined {
  // A `+01:00` pasted into an address arrives as ` 01:00` (a `+` there is a space): read it back,
  // unless the text is a time as it is (`2026-11-23 14:05`: that space is the date's separator).
  const match = TIME.exec(text) ?? TIME.exec(text.replace(/ (\d{2}:\d{2})$/, '+$1'));
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((field) => Number(field ?? 0)) as [number, number, number, number, number, number];
  const offsetMinutes = offsetMinutesOf(match[8] ?? 'Z');
  if (offsetMinutes === undefined) return undefined;
  const instant = instantOf({ year, month, day, hour, minute, second, millisecond: millisecondsOf(match[7]), offsetMinutes });
  // To the microsecond, as rows are stored (a Date holds milliseconds): .749 and .7491 differ.
  const microseconds = (match[7] ?? '').slice(3, 6).padEnd(3, '0');
  return instant?.toISOString().replace(/Z$/, `${microseconds}Z`);
}

/**
 * A time field's value as a datetime-local input shows it (UTC, to the millisecond), or undefined
 * when it cannot: not a time, or finer than a millisecond. A time in RFC 3339 with an offset (as a
 * URL may carry it) is shown as its UTC time; put in as it was, the input showed nothing, and the
 * next search sent the field empty.
 */
export function datetimeLocalValue(text: string): string | undefined {
  if (text.trim() === '') return '';
  const instant = parseInstant(text.trim());
  if (!instant || !instant.endsWith('000Z')) return undefined;
  return instant.slice(0, 23).replace(/\.000$/, '');
}

export function parseLogCursor(text: string): LogCursor | undefined {
  const match = LOG_CURSOR.exec(text);
  if (!match || !CANONICAL_UUID.test(match[2]!) || parseInstant(match[1]!) === undefined) return undefined;
  return { received_at: match[1]!, correlation_id: match[2]! };
}

export const logCursorOf = (row: LogCursor) => `${row.received_at}~${row.correlation_id}`;

/**
 * The search in a page's query string, or what is wrong with it (every field that is). Empty
 * fields are absent; ids are taken trimmed and in lowercase; times without a zone are UTC.
 * `undecodable`: fields whose value in the URL is not UTF-8 (undecodableParameters).
 */
export function parseSearch(query: Record<string, unknown>, undecodable: readonly SearchField[] = []): { form: SearchForm; search?: Search; errors: SearchError[] } {
  const errors: SearchError[] = [];
  for (const field of undecodable) errors.push({ field, message: 'is not UTF-8 once percent-decoded; encode the text as UTF-8 before percent-encoding it' });
  const form = {} as SearchForm;
  for (const field of SEARCH_FIELDS) {
    const value = query[field];
    if (Array.isArray(value)) errors.push({ field, message: 'given more than once' });
    form[field] = typeof value === 'string' ? value : Array.isArray(value) ? String(value[0] ?? '') : '';
  }
  const present = (field: SearchField) => form[field].trim() !== '';
  const filter: PostbackLogFilter = {};
  const fail = (field: SearchField, message: string) => void errors.push({ field, message });

  for (const field of ['correlation_id', 'partner_id', 'click_id', 'instance_id'] as const) {
    if (!present(field)) continue;
    const id = form[field].trim().toLowerCase();
    if (CANONICAL_UUID.test(id)) filter[field] = id;
    else fail(field, 'expected a UUID such as 0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b');
  }
  if (form.identity !== '') {
    if (characterCount(form.identity) > MAX_IDENTITY_CHARACTERS || CONTROL.test(form.identity)) fail('identity', `expected 1 to ${MAX_IDENTITY_CHARACTERS} characters without control characters, as partners send event_id, order_id and partner_txn_id`);
    else filter.identity = form.identity;
  }
  if (present('identity_kind')) {
    const kind = IDENTITY_KINDS.find((candidate) => candidate === form.identity_kind);
    if (kind) filter.identity_kind = kind;
    else fail('identity_kind', `expected one of ${IDENTITY_KINDS.join(', ')}`);
  }
  for (const field of ['from', 'to'] as const) {
    if (!present(field)) continue;
    const instant = parseInstant(form[field].trim());
    if (instant) filter[field] = instant;
    else fail(field, 'expected a time such as 2026-11-23T14:05 (UTC) or 2026-11-23T14:05:00+01:00');
  }
  if (filter.from && filter.to && filter.from >= filter.to) fail('to', 'must be later than from');
  let refused = false;
  if (present('decision')) {
    const decision = DECISIONS.find((candidate) => candidate === form.decision);
    if (decision) filter.decision = decision;
    else if (form.decision === REFUSED) refused = true;
    else fail('decision', `expected one of ${[...DECISIONS, REFUSED].join(', ')}`);
  }
  let limit = DEFAULT_LIMIT;
  if (present('limit')) {
    limit = /^[0-9]{1,4}$/.test(form.limit.trim()) ? Number(form.limit.trim()) : 0;
    if (limit < 1 || limit > MAX_LIMIT) fail('limit', `expected a whole number from 1 to ${MAX_LIMIT}`);
  }
  const page: Search['page'] = { limit };
  if (present('after') && present('before')) fail('before', 'give after or before, not both');
  for (const field of ['after', 'before'] as const) {
    if (!present(field)) continue;
    const cursor = form[field].trim();
    if (refused ? isEntryId(cursor) : parseLogCursor(cursor)) page[field] = cursor;
    else fail(field, 'not a position of this listing; start again from the first page');
  }
  return errors.length > 0 ? { form, errors } : { form, errors, search: { filter, refused, page } };
}
