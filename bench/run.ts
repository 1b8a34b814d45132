import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printTable, writeResults, type BenchRow } from './support.js';

/** `npm run bench`: every bench/*.ts that exports run(), one table each, JSON in bench-results/. */
const here = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && !['run.ts', 'support.ts'].includes(file))
  .map((file) => file.replace(/\.ts$/, ''))
  .filter((name) => only.length === 0 || only.includes(name));

for (const name of benches) {
  const module = (await import(`./${name}.js`)) as { run?: () => Promise<BenchRow[]> };
  if (!module.run) continue;
  process.stderr.write(`running bench ${name}...\n`);
  const rows = await module.run();
  printTable(name, rows);
  writeResults(name, rows);
}
process.exit(0);
