import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fromCallerFolder } from '../../../platform/cli/caller-folder.js';
import { deriveRegistry } from './derive.js';
import { commandSourceRows } from './source-input.js';
import { toJsonLines } from './static-export.js';

/**
 * `npm run geo:export-legacy [-- file] [--out path]`: writes the static LEGACY registry (JSON
 * Lines, one static registry entry per line) to reports/legacy-registry-v1-<date>.jsonl or --out.
 */
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
// Paths typed on the command line are from the folder it was run in (npm run starts in the project's).
const typedOut = outAt >= 0 ? args[outAt + 1] : undefined;
const out = typedOut === undefined ? undefined : fromCallerFolder(typedOut);
const typedFile = args.find((arg, i) => !arg.startsWith('--') && (outAt < 0 || i !== outAt + 1));
const file = typedFile === undefined ? undefined : fromCallerFolder(typedFile);
const log = (line: string) => process.stderr.write(`${line}\n`);
if (outAt >= 0 && out === undefined) {
  log('--out needs a path');
  process.exit(2);
}
const { sourceFileDate, rows } = await commandSourceRows(file, log);
const { entries } = deriveRegistry(rows);
const path = out ?? `reports/legacy-registry-v1-${sourceFileDate}.jsonl`;
mkdirSync(dirname(path), { recursive: true });
writeFileSync(path, toJsonLines(entries));
process.stdout.write(`${JSON.stringify({ path, source_file_date: sourceFileDate, entries: entries.length })}\n`);
