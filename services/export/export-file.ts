import { basename } from 'node:path';
import type { Cell, ExportColumn } from './columns.js';
import type { ExportProgress } from './progress.js';
import { CONVENTIONS, documentColumns, type EventSource, type ExportFormat, type ReadModelSource } from './schema-document.js';
import { openWriter } from './writers/writer.js';

/** How many batches may wait for the writer before reading waits for it. */
const WRITE_BEHIND_BATCHES = 4;

export interface ExportResult {
  rows: number;
  files: string[];
}

export interface ExportFile {
  format: ExportFormat;
  out: string;
  columns: readonly ExportColumn[];
  progress: ExportProgress;
  /** For the progress line: what is exported, and how many items there are to go through. */
  what: string;
  total: number;
  /** Stops the export before its next batch (the file is removed, the abort's reason thrown). */
  signal?: AbortSignal;
}

/**
 * Writes one export file: `fill` hands over rows (and how many items it has gone through, for
 * the progress), then the file is completed with its schema document. A failure removes what
 * was written.
 */
export async function writeExportFile(
  file: ExportFile,
  fill: (write: (rows: Cell[][], seen: number) => Promise<void>) => Promise<void>,
  source: () => EventSource | ReadModelSource,
): Promise<ExportResult> {
  const writer = await openWriter(file.format, file.out, file.columns);
  let rows = 0;
  let seen = 0;
  // Rows are written behind the read, a few batches deep, so the log fetches the next batch
  // while this one is encoded; a failed write fails the next batch handed over, or the end.
  let writing: Promise<void> = Promise.resolve();
  let queued = 0;
  try {
    file.progress.start(file.what, file.total);
    await fill(async (batch, items) => {
      file.signal?.throwIfAborted();
      queued += 1;
      writing = writing.then(async () => {
        await writer.write(batch);
        queued -= 1;
        rows += batch.length;
        seen += items;
        file.progress.update(seen);
      });
      writing.catch(() => {});
      if (queued > WRITE_BEHIND_BATCHES) await writing;
    });
    await writing;
    file.signal?.throwIfAborted();
    file.progress.stop();
    const files = await writer.finish({
      about: 'offer-ledger export, version 1',
      file: basename(file.out),
      format: file.format,
      rows,
      exported_at: new Date().toISOString(),
      source: source(),
      columns: documentColumns(file.columns),
      conventions: CONVENTIONS,
    });
    return { rows, files };
  } catch (error) {
    file.progress.stop();
    await writer.abort();
    throw error;
  }
}
