import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { smallCliArgs } from '../platform/cli/small-cli.js';
import { loadConfig } from '../platform/config/config.js';
import { exitOnStartupFailure } from '../platform/startup.js';
import { printTable, writeResults, type BenchRow } from './support.js';

/** `npm run bench [-- name…]`: every bench/*.ts that exports run() (or those named), one table each, JSON in bench-results/. */
const here = fileURLToPath(new URL('.', import.meta.url));
// A bench is a module with a run() of its own; the others (instances.ts, query.ts, …) are its parts.
const names = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts' && /^export (async )?(function|const) run\b/m.test(readFileSync(`${here}${file}`, 'utf8')))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();
const { positionals: only } = smallCliArgs({
  positionals: names.length,
  usage: `usage: npm run bench [-- <name>…]
Runs the benches named (all of them without a name), each printing a table whose figures are
compared with a baseline measured in the same run; results also go to bench-results/.
benches: ${names.join(', ')}`,
});
const unknown = only.filter((name) => !names.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`error: no bench named ${unknown.join(', ')}; one of ${names.join(', ')}\n`);
  process.exit(2);
}
// The benches' server processes inherit this environment under a database and secret of the
// bench's own, so a bad setting would end one of them mid-run (after the seeding) with a stack
// trace: it is refused here, before any work, as every command refuses it.
try {
  loadConfig({ ...process.env, DATABASE_URL: 'postgres://bench@127.0.0.1/bench', KEY_HASH_SECRET: 'bench-key-hash-secret-0123456789abcdef' });
} catch (error) {
  exitOnStartupFailure(error, 'the benches');
}

for (const name of only.length === 0 ? names : only) {
  const module = (await import(`./${name}.js`)) as { run: () => Promise<BenchRow[]> };
  process.stderr.write(`running bench ${name}...\n`);
  const rows = await module.run();
  printTable(name, rows);
  writeResults(name, rows);
}
process.exit(0);
