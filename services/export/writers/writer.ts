import type { Cell, ExportColumn } from '../columns.js';
import type { ExportFormat, SchemaDocument } from '../schema-document.js';
import { csvWriter } from './csv.js';
import { ndjsonWriter } from './ndjson.js';
import { parquetWriter } from './parquet.js';

/** Rows in, one file out; nothing appears at the path until finish() has written it whole. */
export interface RowWriter {
  write(rows: Cell[][]): Promise<void>;
  /**
   * Completes the file with its schema document; returns the paths written. Once `signal` is
   * aborted nothing is moved into place (the abort's reason is thrown): a file appears at its path
   * only when the move began before the abort, and then whole.
   */
  finish(document: SchemaDocument, signal?: AbortSignal): Promise<string[]>;
  /** Removes what was written so far. */
  abort(): Promise<void>;
}

export function openWriter(format: ExportFormat, path: string, columns: readonly ExportColumn[]): Promise<RowWriter> {
  switch (format) {
    case 'ndjson':
      return Promise.resolve(ndjsonWriter(path, columns));
    case 'csv':
      return Promise.resolve(csvWriter(path, columns));
    case 'parquet':
      return parquetWriter(path, columns);
  }
}
