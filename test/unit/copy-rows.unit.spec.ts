import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyText } from '../../platform/db/copy-rows.js';
import { storableText } from '../../platform/db/storable-text.js';
import type { InsertColumn } from '../../platform/db/unnest-insert.js';

interface Row {
  id: string;
  note: string | null;
  at: Date;
  flag: boolean;
}

const COLUMNS: readonly InsertColumn<Row>[] = [
  ['id', 'text'],
  ['note', 'text'],
  ['at', 'timestamptz'],
  ['flag', 'boolean', (row) => !row.flag],
];

/** COPY's text format read back, as Postgres reads it (the model the encoder must satisfy). */
function readCopyText(text: string): (string | null)[][] {
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) =>
      line.split('\t').map((field) =>
        field === '\\N' ? null : field.replace(/\\(.)/g, (_, escaped: string) => ({ n: '\n', r: '\r', t: '\t', '\\': '\\' })[escaped] ?? escaped),
      ),
    );
}

describe('copyText', () => {
  it('writes nulls, booleans, dates and escapes as COPY reads them', () => {
    const text = copyText(COLUMNS, [
      { id: 'a\tb', note: null, at: new Date('2026-06-01T12:00:00Z'), flag: true },
      { id: 'c\\N', note: 'line\nbreak\rreturn', at: new Date('2026-06-01T12:00:01.5Z'), flag: false },
    ]);
    expect(text).toBe('a\\tb\t\\N\t2026-06-01T12:00:00.000Z\tf\nc\\\\N\tline\\nbreak\\rreturn\t2026-06-01T12:00:01.500Z\tt\n');
  });

  it('writes a NUL, which no text column can hold, as U+FFFD: a logged event with one cannot stall its projection', () => {
    expect(copyText(COLUMNS, [{ id: 'a\u0000b', note: '\u0000', at: new Date(0), flag: true }])).toBe('a\ufffdb\t\ufffd\t1970-01-01T00:00:00.000Z\tf\n');
  });

  it('round-trips any text: one line per row, one field per column, every value as given (a NUL as U+FFFD)', () => {
    const row = fc.record({
      id: fc.string({ unit: 'binary' }),
      note: fc.option(fc.string({ unit: fc.constantFrom('\\', '\n', '\r', '\t', 'N', 'a', 'é', '😀', '\u0000') })),
      at: fc.date({ noInvalidDate: true, min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z') }),
      flag: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 20 }), (rows) => {
        const read = readCopyText(copyText(COLUMNS, rows));
        expect(read).toEqual(rows.map((r) => [storableText(r.id), r.note === null ? null : storableText(r.note), r.at.toISOString(), r.flag ? 'f' : 't']));
      }),
    );
  });
});
