import { isoTimeFormatter } from '../time/iso-time.js';
import type { Sql } from './db.js';
import { NUL, NUL_STAND_IN } from './storable-text.js';
import { insertRowsSkippingTaken, type InsertColumn } from './unnest-insert.js';
import { hasSqlState, SQLSTATE } from './sqlstate.js';

/**
 * Characters COPY's text format gives a meaning of their own, escaped with a backslash; and NUL,
 * which no text column holds, stored as U+FFFD (storable-text.ts).
 */
const SPECIAL = /[\\\n\r\t\u0000]/;
const SPECIAL_ALL = /[\\\n\r\t\u0000]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', [NUL]: NUL_STAND_IN };

/**
 * One value in COPY text format: `\N` for null, `t`/`f`, ISO text for dates (written by the
 * column's own `isoTime`), the rest as text.
 */
function copyValue(value: unknown, isoTime: (ms: number) => string): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return SPECIAL.test(value) ? value.replace(SPECIAL_ALL, (character) => ESCAPES[character]!) : value;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return isoTime(value.getTime());
  return copyValue(String(value), isoTime);
}

type CopyTextWriter<R> = (rows: readonly R[]) => string;

/** One writer per column list (a projection's are module constants), made on first use. */
const writers = new WeakMap<readonly InsertColumn<never>[], CopyTextWriter<never>>();

/**
 * The writer of `columns`' rows: a function generated for that column list, reading each value
 * straight from its property (or the column's value function) and adding the row's line to the
 * text as one expression. A rebuild writes every row of the log through it; the generic loop
 * (a call through a getter per cell, then one string per row to join) took a quarter of a
 * replay's time, about 1.5 times what this takes.
 */
function copyTextWriter<R>(columns: readonly InsertColumn<R>[]): CopyTextWriter<R> {
  const kept = writers.get(columns as readonly InsertColumn<never>[]);
  if (kept) return kept as CopyTextWriter<R>;
  const valueFunctions = columns.map(([, , valueOf]) => valueOf);
  const cells = columns.map(([name, , valueOf], index) =>
    `value(${valueOf ? `valueOf[${index}](row)` : `row[${JSON.stringify(name)}]`}, isoTimes[${index}])`,
  );
  const writer = new Function(
    'value',
    'valueOf',
    'isoTimes',
    `return (rows) => { let text = ''; for (let index = 0; index < rows.length; index += 1) { const row = rows[index]; text += ${cells.join(" + '\\t' + ")} + '\\n'; } return text; };`,
  )(copyValue, valueFunctions, columns.map(() => isoTimeFormatter())) as CopyTextWriter<R>;
  writers.set(columns as readonly InsertColumn<never>[], writer as CopyTextWriter<never>);
  return writer;
}

/**
 * The rows as COPY text (one line per row, columns separated by tabs), each value taken as
 * insertRowsSkippingTaken takes it: the column's value function, or the row's property of its name.
 * Pure.
 */
export function copyText<R>(columns: readonly InsertColumn<R>[], rows: readonly R[]): string {
  return copyTextWriter(columns)(rows);
}

/** Inserts the rows by COPY, inside the caller's transaction; fails as a plain INSERT of them would. */
export async function copyRows<R>(tx: Sql, table: string, columns: readonly InsertColumn<R>[], rows: readonly R[], options: { savepoint?: string } = {}): Promise<void> {
  if (rows.length === 0) return;
  await tx.copyFrom(
    table,
    columns.map(([name]) => name),
    copyText(columns, rows),
    options,
  );
}

/**
 * Fewer rows than this go by the insert: below it the round trips COPY adds cost more than it
 * saves (a live projector's batches are small; a rebuild's are thousands).
 */
export const COPY_FROM_ROWS = 200;

/**
 * Inserts the rows that take no unique key already taken, as INSERT … ON CONFLICT DO NOTHING
 * does (the first row of a key wins), inside the caller's transaction. The rows go by COPY,
 * which costs Postgres about half as much per row and skips encoding array parameters here; a
 * taken key makes COPY fail as a whole, so it runs under a savepoint and, only then, the rows
 * go again by the conflict-skipping insert (a projection's keys are minted once per event, so
 * that happens only when the log carries an event twice). Batches of fewer than COPY_FROM_ROWS
 * rows go by that insert at once.
 */
export async function insertNewRows<R>(tx: Sql, table: string, columns: readonly InsertColumn<R>[], rows: readonly R[]): Promise<void> {
  if (rows.length === 0) return;
  // COPY's own exchange costs two round trips against the insert's one.
  if (rows.length < COPY_FROM_ROWS) return insertRowsSkippingTaken(tx, table, columns, rows);
  try {
    await copyRows(tx, table, columns, rows, { savepoint: 'insert_new_rows' });
  } catch (error) {
    if (!hasSqlState(error, SQLSTATE.uniqueViolation)) throw error;
    await tx.exec('ROLLBACK TO SAVEPOINT insert_new_rows');
    await insertRowsSkippingTaken(tx, table, columns, rows);
  }
}
