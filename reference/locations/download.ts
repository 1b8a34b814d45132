import { createHash } from 'node:crypto';
import { createWriteStream, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command } from 'commander';
import { exitOnParseError, helpPointer } from '../../platform/cli/parse-errors.js';
import { ExitCode, describeFailure } from '../../platform/startup.js';
import { sourceFileDateOf, ZIP_MAGIC } from './full/source-file.js';
import { SOURCE_HEADER } from './geo-target-row.js';
import { reportUnexpectedFailures } from '../../platform/cli/unexpected-failure.js';
import { makeFolder } from '../../platform/fs/make-folder.js';

reportUnexpectedFailures();

/** The release protocol v1.0 pins as its FULL catalog. */
const PINNED_RELEASE_DATE = '2026-08-12';
/** How long the server may stay silent: before its answer starts, and between parts of the file. */
const DEFAULT_TIMEOUT_S = 30;
const releaseUrl = (date: string) =>
  `https://developers.google.com/static/google-ads/api/data/geo/geotargets-${date}.csv.zip`;

/**
 * `npm run geo:download [-- --dir <folder>] [--date YYYY-MM-DD] [--url <url>]`: fetches a release
 * (zip, or a plain CSV from a mirror given by --url), writes it under its own name, records its
 * sha256 beside it (`<file>.sha256`, sha256sum format) and prints the settings that load it.
 */
const program = new Command('geo:download')
  .description(
    `Download a geo-target release from Google (internet access needed): the pinned ${PINNED_RELEASE_DATE} one unless --date says another; writes it under its own name with its sha256 beside it and prints the GEO_CATALOG_FILE and GEO_CATALOG_SHA256 that load it.`,
  )
  .option('--dir <folder>', 'where to save the file', join('.data', 'geo'))
  .option('--date <date>', 'release date', PINNED_RELEASE_DATE)
  .option('--url <url>', 'download from this address instead of Google (file name must keep geotargets-YYYY-MM-DD)')
  .option('--timeout <seconds>', 'give up when the server sends nothing for this long: no answer yet, or the file stalled midway', String(DEFAULT_TIMEOUT_S))
  .addHelpText(
    'after',
    '\nExit codes: 0 saved; 2 invalid flags, or no release at the address (HTTP 404, 410); 4 the host does not answer (or falls silent for --timeout), or a server error (5xx, 408, 429): try again later; 1 any other failure (another HTTP status, an answer that is not a release, a file that cannot be written). A failed download saves nothing.',
  )
  .showHelpAfterError(helpPointer('npm run geo:download --'))
  .exitOverride(exitOnParseError)
  .parse();
const MAX_TIMER_MS = 2 ** 31 - 1;
const options = program.opts<{ dir: string; date: string; url?: string; timeout: string }>();
const url = options.url ?? releaseUrl(options.date);
refuseFlags();

/** The last part of an address's path, decoded ("" for none, or one that cannot be decoded). */
function urlFileName(address: string): string {
  const last = new URL(address).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** The release date a file name gives, or undefined when it is not a release's (.csv or .zip, no folder part). */
function releaseDateOf(name: string): string | undefined {
  // A decoded slash would put the file outside --dir; the loader reads a .csv or a .zip.
  if (/[\\/]/.test(name) || !/\.(csv|zip)$/i.test(name)) return undefined;
  try {
    return sourceFileDateOf(name);
  } catch {
    return undefined;
  }
}

/** A --date or --url that cannot name a release is the caller's to fix: one line, exit 2, nothing fetched. */
function refuseFlags(): void {
  const wrong = (flag: string, problem: string): never => {
    process.stderr.write(`error: ${flag}: ${problem}\n`);
    process.exit(ExitCode.invalidInput);
  };
  if (options.url === undefined && !/^\d{4}-\d{2}-\d{2}$/.test(options.date)) wrong('--date', `must be a release date, YYYY-MM-DD (got ${JSON.stringify(options.date)})`);
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) wrong('--url', `must be an http or https address (got ${JSON.stringify(url)})`);
  if (options.url !== undefined) {
    // The loader takes the release date from the file name, so a mirror's file must keep it.
    const named = urlFileName(options.url);
    const date = releaseDateOf(named) ?? wrong('--url', `must end in a release's file name, geotargets-YYYY-MM-DD….csv or .zip (got ${JSON.stringify(named)}); the release date is read from it`);
    if (program.getOptionValueSource('date') === 'cli' && date !== options.date) {
      wrong('--date', `is ${options.date}, but --url names the release of ${date}; give one of them`);
    }
  }
  if (options.dir.trim() === '') wrong('--dir', `is empty (${JSON.stringify(options.dir)}); give the folder to save the release in, or leave the flag out`);
  if (!/^\d+(\.\d+)?$/.test(options.timeout.trim()) || !(Number(options.timeout) > 0)) wrong('--timeout', `must be a number of seconds above 0 (got ${JSON.stringify(options.timeout)})`);
  // A timer's longest delay (2^31 - 1 ms): past it Node fires the timer at once, so every download would "time out".
  if (Number(options.timeout) * 1000 > MAX_TIMER_MS) wrong('--timeout', `must be at most ${Math.floor(MAX_TIMER_MS / 1000)} seconds (got ${options.timeout})`);
}
const timeoutMs = Number(options.timeout) * 1000;
const name = options.url === undefined ? `geotargets-${options.date}.csv.zip` : urlFileName(options.url);
const target = resolve(options.dir, name);
const partial = `${target}.partial`;

/** A download that failed, with the exit code of its kind (README, Commands). */
class DownloadError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

const OFFLINE = 'without internet access here, download it on another machine, copy it to this one, and set GEO_CATALOG_FILE to its path';
/** The flag that chose the address, for an answer saying nothing is there. */
const addressFlag = options.url === undefined ? '--date' : '--url';

/** Statuses that say the server cannot answer now (retry later), not that the file is missing. */
const unavailableStatus = (status: number) => status >= 500 || status === 408 || status === 429;

/**
 * What the server answered, refused unless it is a release: a zip, or a CSV starting with the
 * geo-target header (an error or login page served with 200 would otherwise be saved as one).
 */
function releaseHead(head: Buffer): boolean {
  if (head.subarray(0, ZIP_MAGIC.length).equals(ZIP_MAGIC)) return true;
  const text = head.toString('utf8').replace(/^\uFEFF/, '').replaceAll('"', '');
  return text.startsWith(SOURCE_HEADER.join(','));
}

async function download(): Promise<{ sha256: string }> {
  try {
    makeFolder(options.dir);
  } catch (error) {
    throw new DownloadError(`--dir: cannot create ${options.dir} (${describeFailure(error)})`, ExitCode.invalidInput);
  }
  // fetch's own limits are minutes long: a server that takes the connection and then says nothing
  // (or stops midway through the file) is given up after --timeout of silence instead.
  const silence = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const restartSilence = () => {
    clearTimeout(timer);
    timer = setTimeout(() => silence.abort(new Error('silent')), timeoutMs);
  };
  const host = new URL(url).host;
  const silentFailure = (what: string) =>
    new DownloadError(`cannot download ${url}: ${host} ${what} for ${options.timeout} s (--timeout); try again later (or with a longer --timeout), or ${OFFLINE}`, ExitCode.unavailable);
  let response: Response;
  try {
    restartSilence();
    response = await fetch(url, { signal: silence.signal });
  } catch (error) {
    clearTimeout(timer);
    if (silence.signal.aborted) throw silentFailure('sent no answer');
    // No answer at all (refused, no route, name not found): the remote is unavailable from here.
    throw new DownloadError(`cannot download ${url}: ${describeFailure(error)}; ${OFFLINE}`, ExitCode.unavailable);
  }
  restartSilence();
  try {
    return await save(response, restartSilence, () => silence.signal.aborted, silentFailure);
  } finally {
    clearTimeout(timer);
  }
}

/** The answer saved as the release, when it is one; `heard` restarts the silence timer at each part of the file. */
async function save(response: Response, heard: () => void, fellSilent: () => boolean, silentFailure: (what: string) => DownloadError): Promise<{ sha256: string }> {
  if (!response.ok || !response.body) {
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    if (unavailableStatus(response.status)) throw new DownloadError(`cannot download ${url}: ${status}; the server cannot answer now: try again later`, ExitCode.unavailable);
    if (response.status === 404 || response.status === 410) throw new DownloadError(`${addressFlag}: no release at ${url} (${status}); check the date of the release`, ExitCode.invalidInput);
    throw new DownloadError(`cannot download ${url}: ${status}; the server refuses this address: check ${addressFlag}, or ${OFFLINE}`, ExitCode.failure);
  }
  const hash = createHash('sha256');
  let head = Buffer.alloc(0);
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => {
    heard();
    hash.update(chunk);
    if (head.length < 256) head = Buffer.concat([head, chunk]).subarray(0, 256);
  });
  try {
    await pipeline(body, createWriteStream(partial));
  } catch (error) {
    if (fellSilent()) throw silentFailure('sent nothing more of the file');
    // The file side (a full disk, a folder not writable) is this command's to fix; else the answer broke off.
    if ((error as NodeJS.ErrnoException).syscall !== undefined) throw new DownloadError(`cannot write ${partial}: ${describeFailure(error)}`, ExitCode.failure);
    throw new DownloadError(`cannot download ${url}: the answer broke off (${describeFailure(error)}); try again`, ExitCode.unavailable);
  }
  if (!releaseHead(head)) {
    throw new DownloadError(`${url} answered with a file that is not a geo-target release (neither a zip nor a CSV with the release's header); nothing was saved`, ExitCode.failure);
  }
  renameSync(partial, target);
  const sha256 = hash.digest('hex');
  writeFileSync(`${target}.sha256`, `${sha256}  ${name}\n`);
  return { sha256 };
}

try {
  const { sha256 } = await download();
  process.stdout.write(`saved ${target}\nsha256 ${sha256}\n\nload it with:\n  GEO_CATALOG_FILE=${target} GEO_CATALOG_SHA256=${sha256} npm start\n`);
} catch (error) {
  rmSync(partial, { force: true });
  // Saving the file (its rename, the .sha256 beside it) is the rest that can fail: this command's own failure.
  const failure = error instanceof DownloadError ? error : new DownloadError(`cannot save ${target}: ${describeFailure(error)}`, ExitCode.failure);
  process.stderr.write(`error: ${failure.message}\n`);
  process.exitCode = failure.exitCode;
}
