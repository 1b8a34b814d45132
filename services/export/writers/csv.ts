import { stringify } from 'csv-stringify/sync';
import type { Cell, ExportColumn } from '../columns.js';
import { textFile } from './file.js';
import type { RowWriter } from './writer.js';

/**
 * RFC 4180 CSV with a header row of the column names; the schema document is the sidecar
 * FILE.schema.json. null is an empty unquoted field and an empty string is "" (csv-parse tells
 * them apart by `quoting`; DuckDB with allow_quoted_nulls = false).
 */
export function csvWriter(path: string, columns: readonly ExportColumn[]): RowWriter {
  const file = textFile(path);
  const text = columns.map((column) => (column.kind === 'json' ? (cell: Cell) => JSON.stringify(cell) : (cell: Cell) => String(cell)));
  const options = { cast: { string: (value: string) => (value === '' ? { value, quoted_empty: true } : value) } };
  let header = false;
  async function write(rows: Cell[][]) {
    const records = rows.map((row) => row.map((cell, index) => (cell === null || cell === undefined ? null : text[index]!(cell))));
    if (!header) {
      records.unshift(columns.map((column) => column.name));
      header = true;
    }
    await file.write(stringify(records, options));
  }
  return {
    write,
    async finish(document) {
      if (!header) await write([]);
      return file.finish(document);
    },
    abort: () => file.abort(),
  };
}
