import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { generateGeoCatalog, writeGeoCatalog } from './geo-catalog-generator.js';

/** `npm run geo:generate [-- --dir <folder>] [--scale 1] [--seed n]`: writes the synthetic full-size catalog. */
const options = new Command('geo:generate')
  .description('Write a synthetic geo-target catalog the size of a full release (for load tests and benchmarks; not real places) as geotargets-2026-08-12-generated.csv.')
  .option('--dir <folder>', 'output folder', join('.data', 'geo'))
  .option('--scale <n>', 'size relative to a full release', '1')
  .option('--seed <n>', 'random seed', '20260812')
  .parse()
  .opts<{ dir: string; scale: string; seed: string }>();
mkdirSync(options.dir, { recursive: true });
const file = resolve(options.dir, 'geotargets-2026-08-12-generated.csv');
const catalog = generateGeoCatalog({ scale: Number(options.scale), seed: Number(options.seed) });
await writeGeoCatalog(file, catalog);
process.stdout.write(`${JSON.stringify({ file, rows: catalog.rows.length, countsByType: catalog.countsByType }, null, 2)}\n`);
