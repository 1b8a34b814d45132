import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { exitOnParseError, helpPointer } from '../../platform/cli/parse-errors.js';
import { generateGeoCatalog, writeGeoCatalog } from './geo-catalog-generator.js';
import { reportUnexpectedFailures } from '../../platform/cli/unexpected-failure.js';

reportUnexpectedFailures();

/** `npm run geo:generate [-- --dir <folder>] [--scale 1] [--seed n]`: writes the synthetic full-size catalog. */
const options = new Command('geo:generate')
  .description('Write a synthetic geo-target catalog the size of a full release (for load tests and benchmarks; not real places) as geotargets-2026-08-12-generated.csv.')
  .option('--dir <folder>', 'output folder', join('.data', 'geo'))
  .option('--scale <n>', 'size relative to a full release, from 0.001 to 4', '1')
  .option('--seed <n>', 'random seed', '20260812')
  .showHelpAfterError(helpPointer('npm run geo:generate --'))
  .exitOverride(exitOnParseError)
  .parse()
  .opts<{ dir: string; scale: string; seed: string }>();
/** A flag's number within [min, max], or exit 2 saying what it takes (a stray value crashed or ran without end). */
function numberFlag(flag: string, raw: string, min: number, max: number, whole: boolean): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
    process.stderr.write(`error: ${flag} must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${raw}"\n`);
    process.exit(2);
  }
  return value;
}
const scale = numberFlag('--scale', options.scale, 0.001, 4, false);
const seed = numberFlag('--seed', options.seed, 0, 2 ** 31 - 1, true);
mkdirSync(options.dir, { recursive: true });
const file = resolve(options.dir, 'geotargets-2026-08-12-generated.csv');
const catalog = generateGeoCatalog({ scale, seed });
await writeGeoCatalog(file, catalog);
process.stdout.write(`${JSON.stringify({ file, rows: catalog.rows.length, countsByType: catalog.countsByType }, null, 2)}\n`);
