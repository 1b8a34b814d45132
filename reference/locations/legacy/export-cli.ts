import { writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fromCallerFolder } from '../../../platform/cli/caller-folder.js';
import { smallCliArgs } from '../../../platform/cli/small-cli.js';
import { deriveRegistry } from './derive.js';
import { commandSourceRows } from './source-input.js';
import { toJsonLines } from './static-export.js';
import { reportUnexpectedFailures } from '../../../platform/cli/unexpected-failure.js';
import { makeFolder } from '../../../platform/fs/make-folder.js';

reportUnexpectedFailures();

/**
 * `npm run geo:export-legacy [-- file] [--out path]`: writes the static LEGACY registry (JSON
 * Lines, one static registry entry per line) to reports/legacy-registry-v1-<date>.jsonl or --out.
 */
const { values, positionals } = smallCliArgs({
  positionals: 1,
  options: { out: { type: 'string' } },
  usage: `usage: npm run geo:export-legacy [-- <file>] [--out <path>]
Writes the static LEGACY registry (JSON Lines, one static registry entry per line) derived from a
geo-target release file (default: GEO_CATALOG_FILE, else the release loaded in the configured
database) to --out, else to
reports/legacy-registry-v1-<source file date>.jsonl.`,
});
// Paths typed on the command line are from the folder it was run in (npm run starts in the project's).
const out = values.out === undefined ? undefined : fromCallerFolder(values.out);
const file = positionals[0] === undefined ? undefined : fromCallerFolder(positionals[0]);
const log = (line: string) => process.stderr.write(`${line}\n`);
const { sourceFileDate, rows } = await commandSourceRows('geo:export-legacy', file, log);
const { entries } = deriveRegistry(rows);
const path = out ?? `reports/legacy-registry-v1-${sourceFileDate}.jsonl`;
makeFolder(dirname(path));
writeFileSync(path, toJsonLines(entries));
process.stdout.write(`${JSON.stringify({ path, source_file_date: sourceFileDate, entries: entries.length })}\n`);
