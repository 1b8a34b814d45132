import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromCallerFolder } from '../../../platform/cli/caller-folder.js';
import { smallCliArgs } from '../../../platform/cli/small-cli.js';
import { registryRows } from './build.js';
import { coverageMarkdown, coverageReport } from './coverage.js';
import { commandSourceRows } from './source-input.js';
import { loadSubdivisions } from './subdivisions.js';
import { reportUnexpectedFailures } from '../../../platform/cli/unexpected-failure.js';
import { makeFolder } from '../../../platform/fs/make-folder.js';

reportUnexpectedFailures();

/**
 * `npm run geo:coverage [-- file]`: external-code coverage of the LEGACY registry per country.
 * Writes reports/geo-coverage.json and reports/geo-coverage.md (git-ignored), prints a summary.
 */
const { positionals } = smallCliArgs({
  positionals: 1,
  usage: `usage: npm run geo:coverage [-- <file>]
External-code coverage (ISO 3166-2, CLDR, provider short codes) of the LEGACY registry per
country, from a geo-target release file (default: GEO_CATALOG_FILE, else the release loaded in
the configured database). Writes
reports/geo-coverage.json and reports/geo-coverage.md and prints a summary.`,
});
const log = (line: string) => process.stderr.write(`${line}\n`);
const { sourceFileDate, rows } = await commandSourceRows('geo:coverage', positionals[0] === undefined ? undefined : fromCallerFolder(positionals[0]), log);
const source = loadSubdivisions();
const report = coverageReport(registryRows(rows, source), source, sourceFileDate);
makeFolder('reports');
writeFileSync(join('reports', 'geo-coverage.json'), `${JSON.stringify(report, null, 2)}\n`);
writeFileSync(join('reports', 'geo-coverage.md'), coverageMarkdown(report));

const out: string[] = [
  `LEGACY registry coverage, release ${sourceFileDate}, codes from ${report.code_sources}`,
  `regions with codes: ${report.regions_with_codes} of ${report.regions} in ${report.countries_with_regions} countries`,
  `top ${report.top} countries by region count fully covered: ${report.top_fully_covered}`,
  'country  regions  coded  iso-first-level  matched  nested  as-country  missing',
];
for (const country of report.countries.slice(0, report.top)) {
  out.push(`${country.country_code.padEnd(7)}  ${String(country.regions).padStart(7)}  ${String(country.regions_with_iso_3166_2).padStart(5)}  ` +
    `${String(country.first_level).padStart(15)}  ${String(country.first_level_matched).padStart(7)}  ${String(country.first_level_via_nested_units).padStart(6)}  ` +
    `${String(country.first_level_listed_as_country).padStart(10)}  ${country.first_level_missing.length}${country.fully_covered ? '' : ' ✗'}`);
}
out.push('full report: reports/geo-coverage.md, reports/geo-coverage.json');
process.stdout.write(`${out.join('\n')}\n`);
