import { createHash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Transform, pipeline, type Readable } from 'node:stream';
import { parse } from 'csv-parse';
import yauzl from 'yauzl';
import { SOURCE_HEADER, sourceRowOf, type SourceRow } from '../geo-target-row.js';
import { GEO_LOAD_COMMAND } from '../how-to-load.js';

export type { SourceRow };

const RELEASE_URL_PATTERN = 'https://developers.google.com/static/google-ads/api/data/geo/geotargets-YYYY-MM-DD.csv.zip';

/** A release file that cannot be used; the message says what to do. */
export class CatalogFileError extends Error {
  override name = 'CatalogFileError';
}

export function missingFileMessage(file: string | undefined): string {
  const what = file === undefined ? 'No geo-target catalog file is configured' : `The geo-target catalog file "${file}" does not exist`;
  return (
    `${what}. Download the pinned release with \`npm run geo:download\` (needs internet access; prints its sha256), ` +
    `or fetch ${RELEASE_URL_PATTERN} yourself, then load it with \`${GEO_LOAD_COMMAND}\` ` +
    `or start the service with GEO_CATALOG_FILE=<file> (optionally GEO_CATALOG_SHA256=<sha256>).`
  );
}

/** `source_file_date` comes from the file name: geotargets-YYYY-MM-DD[anything]. */
export function sourceFileDateOf(file: string): string {
  const match = /^geotargets-(\d{4})-(\d{2})-(\d{2})/.exec(basename(file));
  const date = match ? `${match[1]}-${match[2]}-${match[3]}` : undefined;
  if (!date || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date) {
    throw new CatalogFileError(
      `Cannot tell the release date of "${basename(file)}": the file name must start with geotargets-YYYY-MM-DD, as Google publishes it.`,
    );
  }
  return date;
}

export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function assertFileExists(file: string): void {
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw new CatalogFileError(`"${file}" is a folder; give the release file in it (geotargets-YYYY-MM-DD.csv or .zip)`);
  }
  if (!existsSync(file) || !statSync(file).isFile()) throw new CatalogFileError(missingFileMessage(file));
}

async function isZip(file: string): Promise<boolean> {
  const handle = await openFile(file, 'r');
  try {
    const magic = Buffer.alloc(4);
    await handle.read(magic, 0, 4, 0);
    return magic.equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  } finally {
    await handle.close();
  }
}

/** The CSV bytes of a release: the file itself, or the single .csv entry of a zip. */
async function openCsv(file: string): Promise<{ stream: Readable; totalBytes: number }> {
  if (!(await isZip(file))) return { stream: createReadStream(file), totalBytes: statSync(file).size };
  // A damaged zip is the file's fault, not the database's: say so (exit 2), not that the load stopped.
  const damaged = (error: Error) => new CatalogFileError(`"${basename(file)}" is not a readable zip (${error.message}); download the release again`);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (error, opened) => (error ? reject(damaged(error)) : resolve(opened))),
  );
  const entry = await new Promise<yauzl.Entry>((resolve, reject) => {
    zip.on('entry', (candidate: yauzl.Entry) => (candidate.fileName.toLowerCase().endsWith('.csv') ? resolve(candidate) : zip.readEntry()));
    zip.on('end', () => reject(new CatalogFileError(`"${basename(file)}" is a zip without a .csv file inside.`)));
    zip.on('error', (error: Error) => reject(damaged(error)));
    zip.readEntry();
  });
  const stream = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, (error, opened) => (error ? reject(damaged(error)) : resolve(opened))),
  );
  return { stream, totalBytes: entry.uncompressedSize };
}

/**
 * Passes the bytes on unchanged once they are known to be UTF-8 (the releases are): a file in
 * another encoding would otherwise load with U+FFFD in place of its accented names.
 */
function utf8Only(file: string): Transform {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  const check = (chunk: Buffer | undefined) => {
    try {
      decoder.decode(chunk, { stream: chunk !== undefined });
      return undefined;
    } catch {
      return new CatalogFileError(`"${basename(file)}" is not UTF-8 text (near byte ${offset}); the geo-target releases are UTF-8: download the release again rather than convert it`);
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const error = check(chunk);
      offset += chunk.length;
      done(error, error ? undefined : chunk);
    },
    flush: (done) => done(check(undefined)),
  });
}

/**
 * Reads every data row of a release. Throws CatalogFileError when the header is not the geo-target
 * header, a row has the wrong number of fields, or a Criteria ID is not a number.
 */
export async function* readSourceRows(file: string, onBytes: (done: number, total: number) => void = () => {}): AsyncGenerator<SourceRow> {
  const { stream, totalBytes } = await openCsv(file);
  let bytes = 0;
  stream.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    onBytes(bytes, totalBytes);
  });
  // pipeline: a failure of any stage (the UTF-8 check, a damaged zip entry) ends the iteration below with it.
  const records = pipeline(stream, utf8Only(file), parse({ bom: true, relax_column_count: true }), () => {});
  let line = 0;
  try {
    for await (const record of records as AsyncIterable<string[]>) {
      line++;
      if (line === 1) {
        if (record.length !== SOURCE_HEADER.length || record.some((field, i) => field.trim() !== SOURCE_HEADER[i])) {
          throw new CatalogFileError(
            `"${basename(file)}" is not a geo-target catalog: its header is "${record.join(',')}", expected "${SOURCE_HEADER.join(',')}".`,
          );
        }
        continue;
      }
      if (record.length !== SOURCE_HEADER.length) {
        throw new CatalogFileError(`Record ${line} of "${basename(file)}" has ${record.length} fields, expected ${SOURCE_HEADER.length}.`);
      }
      const row = sourceRowOf(record);
      if (!/^[0-9]+$/.test(row.id)) throw new CatalogFileError(`Record ${line} of "${basename(file)}" has a Criteria ID that is not a number: "${row.id}".`);
      yield row;
    }
  } catch (error) {
    if (error instanceof CatalogFileError) throw error;
    throw new CatalogFileError(`"${basename(file)}" is not readable as a geo-target CSV: ${(error as Error).message}`);
  } finally {
    stream.destroy();
  }
  if (line === 0) throw new CatalogFileError(`"${basename(file)}" is empty.`);
}
