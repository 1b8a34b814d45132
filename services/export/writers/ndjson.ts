import type { Cell, ExportColumn } from '../columns.js';
import { textFile } from './file.js';
import type { RowWriter } from './writer.js';

/**
 * One JSON object per line with every column, in column order; the schema document is the
 * sidecar FILE.schema.json, so every line is a row (jq, DuckDB's read_json and pandas read it as
 * is). bigint cells are written as JSON numbers from their exact digits.
 */
export function ndjsonWriter(path: string, columns: readonly ExportColumn[]): RowWriter {
  const file = textFile(path);
  const keys = columns.map((column, index) => `${index === 0 ? '{' : ','}${JSON.stringify(column.name)}:`);
  const encode = columns.map((column) => (column.kind === 'bigint' ? (cell: Cell) => String(cell) : (cell: Cell) => JSON.stringify(cell)));
  return {
    async write(rows) {
      let text = '';
      for (const row of rows) {
        for (let index = 0; index < keys.length; index += 1) {
          const cell = row[index];
          text += keys[index]! + (cell === null || cell === undefined ? 'null' : encode[index]!(cell));
        }
        text += '}\n';
      }
      await file.write(text);
    },
    finish: (document) => file.finish(document),
    abort: () => file.abort(),
  };
}
