import type { Cell, ExportColumn } from '../columns.js';
import { textFile } from './file.js';
import { utf8Batch } from './utf8-batch.js';
import type { RowWriter } from './writer.js';

type Shape = (row: Cell[]) => Record<string, unknown>;

/**
 * The row as an object of one fixed shape, keys in column order, which JSON.stringify encodes in
 * one call (several times faster than a call per cell). The factory is generated once per export
 * from the column names (computed keys, so even a column named __proto__ is a plain key); a
 * bigint cell becomes a JSON number.
 */
function rowShape(columns: readonly ExportColumn[]): Shape {
  const properties = columns.map((column, index) => `[${JSON.stringify(column.name)}]: ${column.kind === 'bigint' ? 'number' : 'cell'}(row[${index}])`);
  const factory = new Function('cell', 'number', `return (row) => ({ ${properties.join(', ')} });`) as (
    cell: (value: Cell) => unknown,
    number: (value: Cell) => unknown,
  ) => Shape;
  return factory(
    (value) => value ?? null,
    (value) => (value === null || value === undefined ? null : Number(value)),
  );
}

/** Whether every bigint cell of the row is exact as a JSON number from JSON.stringify. */
const safeIntegers = (row: Cell[], bigints: readonly number[]) =>
  bigints.every((index) => row[index] === null || row[index] === undefined || Number.isSafeInteger(Number(row[index])));

/**
 * One JSON object per line with every column, in column order; the schema document is the sidecar
 * FILE.schema.json, so every line is a row (jq, DuckDB's read_json and pandas read it as is).
 * bigint cells are written as JSON numbers from their exact digits (beyond 2^53 the line is
 * written cell by cell, so no digit is lost).
 */
export function ndjsonWriter(path: string, columns: readonly ExportColumn[]): RowWriter {
  const file = textFile(path);
  const shape = rowShape(columns);
  const bigints = columns.flatMap((column, index) => (column.kind === 'bigint' ? [index] : []));
  const keys = columns.map((column, index) => `${index === 0 ? '{' : ','}${JSON.stringify(column.name)}:`);
  const encode = columns.map((column) => (column.kind === 'bigint' ? (cell: Cell) => String(cell) : (cell: Cell) => JSON.stringify(cell)));
  const cellByCell = (row: Cell[]) => {
    let line = '';
    for (let index = 0; index < keys.length; index += 1) {
      const cell = row[index];
      line += keys[index]! + (cell === null || cell === undefined ? 'null' : encode[index]!(cell));
    }
    return `${line}}`;
  };
  const batch = utf8Batch();
  return {
    async write(rows) {
      for (const row of rows) batch.add(`${safeIntegers(row, bigints) ? JSON.stringify(shape(row)) : cellByCell(row)}\n`);
      await file.write(batch.take());
    },
    finish: (document, signal) => file.finish(document, signal),
    abort: () => file.abort(),
  };
}
