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

/** How a release file is named, for messages that ask for one. */
const RELEASE_FILE_NAMES = 'geotargets-YYYY-MM-DD.csv or .zip';
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
    throw new CatalogFileError(`"${file}" is a folder; give the release file in it (${RELEASE_FILE_NAMES})`);
  }
  if (!existsSync(file) || !statSync(file).isFile()) throw new CatalogFileError(missingFileMessage(file));
}

/** Whether the file begins with `magic` (a zip's or a gzip's signature). */
async function beginsWith(file: string, magic: Buffer): Promise<boolean> {
  const handle = await openFile(file, 'r');
  try {
    const head = Buffer.alloc(magic.length);
    const { bytesRead } = await handle.read(head, 0, magic.length, 0);
    return bytesRead === magic.length && head.equals(magic);
  } finally {
    await handle.close();
  }
}

/** The first bytes of a zip (a release as published). */
export const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/** The CSV bytes of a release: the file itself, or the single .csv entry of a zip. */
async function openCsv(file: string): Promise<{ stream: Readable; totalBytes: number }> {
  if (!(await beginsWith(file, ZIP_MAGIC))) {
    // Read as CSV, its bytes would be called "not UTF-8 text": the file is damaged, not misencoded.
    if (file.toLowerCase().endsWith('.zip')) {
      throw new CatalogFileError(`"${basename(file)}" is not a zip (it does not begin as one); the file is damaged or cut short: download the release again`);
    }
    return { stream: createReadStream(file), totalBytes: statSync(file).size };
  }
  // A damaged zip is the file's fault, not the database's: say so (exit 2), not that the load stopped.
  const damaged = (error: Error) => new CatalogFileError(`"${basename(file)}" is not a readable zip (${error.message}); download the release again`);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (error, opened) => (error ? reject(damaged(error)) : resolve(opened))),
  );
  const entry = await new Promise<yauzl.Entry>((resolve, reject) => {
    zip.on('entry', (candidate: yauzl.Entry) => (candidate.fileName.toLowerCase().endsWith('.csv') ? resolve(candidate) : zip.readEntry()));
    zip.on('end', () => reject(new CatalogFileError(`"${basename(file)}" is a zip without a .csv file inside; give the geo-target release (${RELEASE_FILE_NAMES}), or download it again with npm run geo:download`)));
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

/** A Criteria ID as Google writes it: digits without a leading zero, within the bigint the tables key on. */
const CRITERIA_ID = /^[1-9][0-9]{0,17}$/;
/** The Location object's `country_code` (ISO 3166-1 alpha-2 as the provider writes it; Kosovo's XK included). */
const COUNTRY_CODE = /^[A-Z]{2}$/;
/** The statuses a release holds; anything else would be dropped as inactive without a word. */
const STATUSES = new Set(['Active', 'Removal Planned']);

/** What is wrong with one data row, or undefined when it can be loaded. */
function rowProblem(row: SourceRow): string | undefined {
  if (!CRITERIA_ID.test(row.id)) return `has a Criteria ID that is not a number without leading zeros: "${row.id}"`;
  if (row.parentId !== null && !CRITERIA_ID.test(row.parentId)) return `has a Parent ID that is neither empty nor a Criteria ID: "${row.parentId}"`;
  if (!COUNTRY_CODE.test(row.countryCode)) return `has a Country Code that is not two capital letters (ISO 3166-1): "${row.countryCode}"`;
  if (!STATUSES.has(row.status)) return `has a Status that is neither Active nor Removal Planned: "${row.status}"`;
  return undefined;
}

/**
 * Reads every data row of a release. Throws CatalogFileError, naming the file and the line, when
 * the header is not the geo-target header, a row has the wrong number of fields, a field cannot be
 * what a release holds (rowProblem) or a Criteria ID appears twice: such a file is damaged, and
 * loading it anyway would serve locations the contract does not allow, or drop some silently.
 */
export async function* readSourceRows(file: string, onBytes: (done: number, total: number) => void = () => {}): AsyncGenerator<SourceRow> {
  const name = basename(file);
  if (await beginsWith(file, GZIP_MAGIC)) {
    throw new CatalogFileError(`"${name}" is gzip-compressed; the loader reads the release's CSV or its .zip as Google publishes it: unpack it (gunzip) or download the .zip`);
  }
  const { stream, totalBytes } = await openCsv(file);
  let bytes = 0;
  stream.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    onBytes(bytes, totalBytes);
  });
  // pipeline: a failure of any stage (the UTF-8 check, a damaged zip entry) ends the iteration below with it.
  const records = pipeline(stream, utf8Only(file), parse({ bom: true, relax_column_count: true, info: true }), () => {});
  const DAMAGED = 'nothing was loaded: download the release again';
  const lineOf = new Map<string, number>();
  let seen = 0;
  try {
    for await (const { record, info } of records as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      seen++;
      // The line the record ends on: a record never spans lines in a release.
      const line = info.lines;
      if (seen === 1) {
        if (record.length !== SOURCE_HEADER.length || record.some((field, i) => field.trim() !== SOURCE_HEADER[i])) {
          throw new CatalogFileError(
            `"${name}" is not a geo-target catalog: its header is "${record.join(',')}", expected "${SOURCE_HEADER.join(',')}".`,
          );
        }
        continue;
      }
      if (record.length !== SOURCE_HEADER.length) {
        throw new CatalogFileError(`Line ${line} of "${name}" has ${record.length} fields, expected ${SOURCE_HEADER.length}; ${DAMAGED}.`);
      }
      const row = sourceRowOf(record);
      const problem = rowProblem(row);
      if (problem) throw new CatalogFileError(`Line ${line} of "${name}" ${problem}; ${DAMAGED}.`);
      const earlier = lineOf.get(row.id);
      if (earlier !== undefined) throw new CatalogFileError(`Line ${line} of "${name}" repeats Criteria ID ${row.id} of line ${earlier}; ${DAMAGED}.`);
      lineOf.set(row.id, line);
      yield row;
    }
  } catch (error) {
    if (error instanceof CatalogFileError) throw error;
    // csv-parse names the line; a file cut short in the middle of a row ends in an open quote.
    throw new CatalogFileError(`"${name}" is not readable as a geo-target CSV (${(error as Error).message}); is it cut short? ${DAMAGED}.`);
  } finally {
    stream.destroy();
  }
  if (seen === 0) throw new CatalogFileError(`"${name}" is empty; ${DAMAGED}.`);
}
