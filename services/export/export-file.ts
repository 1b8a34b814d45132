import { basename } from 'node:path';
import type { Cell, ExportColumn } from './columns.js';
import type { ExportProgress } from './progress.js';
import { CONVENTIONS, documentColumns, type EventSource, type ExportFormat, type ReadModelSource } from './schema-document.js';
import { ExportInputError } from './options.js';
import { claimOut, lockPath, releaseOut } from './writers/file.js';
import { openWriter } from './writers/writer.js';

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

/** Hands over rows, and how many items it has gone through (for the progress). */
type Fill = (write: (rows: Cell[][], seen: number) => Promise<void>) => Promise<void>;

/**
 * Writes one export file: `fill` hands over rows, then the file is completed with its schema
 * document. A failure removes what was written. The export holds `FILE.partial.lock` meanwhile:
 * another export to the same file is refused rather than mixed into it.
 */
export async function writeExportFile(file: ExportFile, fill: Fill, source: () => EventSource | ReadModelSource): Promise<ExportResult> {
  holdOut(file.out);
  try {
    return await writeHeld(file, fill, source);
  } finally {
    await releaseOut(file.out);
  }
}

async function writeHeld(file: ExportFile, fill: Fill, source: () => EventSource | ReadModelSource): Promise<ExportResult> {
  const writer = await openWriter(file.format, file.out, file.columns);
  let rows = 0;
  let seen = 0;
  try {
    file.progress.start(file.what, file.total);
    await fill(async (batch, items) => {
      file.signal?.throwIfAborted();
      // Encoded at once, while its rows are young (the file's own buffer lets the disk lag
      // behind): with Node's default young generation, rows kept waiting a few batches deep
      // outlived it, and copying them was a third of an export's time (the npm scripts' larger
      // one hid it).
      await writer.write(batch);
      rows += batch.length;
      seen += items;
      file.progress.update(seen);
    });
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
    }, file.signal);
    return { rows, files };
  } catch (error) {
    file.progress.stop();
    await writer.abort();
    throw error;
  }
}

/** This export's hold on `--out`, refused naming the flag while another export writes the same file. */
function holdOut(out: string): void {
  try {
    claimOut(out);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST') {
      throw new ExportInputError('--out', `another export is writing ${out} (${lockPath(out)} exists); wait for it to finish, or remove ${lockPath(out)} if none is running`);
    }
    throw new ExportInputError('--out', `cannot write beside ${out} (${code ?? message}); give a file in a folder that can be written`);
  }
}
