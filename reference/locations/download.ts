import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command } from 'commander';
import { exitOnParseError, helpPointer } from '../../platform/cli/parse-errors.js';
import { ExitCode } from '../../platform/startup.js';

/** The release protocol v1.0 pins as its FULL catalog. */
const PINNED_RELEASE_DATE = '2026-08-12';
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
  .showHelpAfterError(helpPointer('npm run geo:download --'))
  .exitOverride(exitOnParseError)
  .parse();
const options = program.opts<{ dir: string; date: string; url?: string }>();
const url = options.url ?? releaseUrl(options.date);
refuseFlags();

/** A --date or --url that cannot name a release is the caller's to fix: one line, exit 2, nothing fetched. */
function refuseFlags(): void {
  const wrong = (flag: string, problem: string): never => {
    process.stderr.write(`error: ${flag}: ${problem}\n`);
    process.exit(ExitCode.invalidInput);
  };
  if (options.url === undefined && !/^\d{4}-\d{2}-\d{2}$/.test(options.date)) wrong('--date', `must be a release date, YYYY-MM-DD (got ${JSON.stringify(options.date)})`);
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) wrong('--url', `must be an http or https address (got ${JSON.stringify(url)})`);
}
const name = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || `geotargets-${options.date}.csv.zip`;
const target = resolve(options.dir, name);

mkdirSync(options.dir, { recursive: true });
const partial = `${target}.partial`;
try {
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status} ${response.statusText}`);
  const hash = createHash('sha256');
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => hash.update(chunk));
  await pipeline(body, createWriteStream(partial));
  renameSync(partial, target);
  const sha256 = hash.digest('hex');
  writeFileSync(`${target}.sha256`, `${sha256}  ${name}\n`);
  process.stdout.write(`saved ${target}\nsha256 ${sha256}\n\nload it with:\n  GEO_CATALOG_FILE=${target} GEO_CATALOG_SHA256=${sha256} npm start\n`);
} catch (error) {
  rmSync(partial, { force: true });
  process.stderr.write(
    `Could not download ${url}: ${(error as Error).message}\n` +
      `Without internet access here, download it on another machine, copy it to this one, and set GEO_CATALOG_FILE to its path.\n`,
  );
  process.exitCode = 1;
}
