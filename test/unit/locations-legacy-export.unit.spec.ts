import { beforeAll, describe, expect, it } from 'vitest';
import { readSourceRows } from '../../reference/locations/full/source-file.js';
import { registryRows, type RegistryRow } from '../../reference/locations/legacy/build.js';
import { coverageReport, type CoverageReport } from '../../reference/locations/legacy/coverage.js';
import { deriveRegistry } from '../../reference/locations/legacy/derive.js';
import type { SourceRow } from '../../reference/locations/legacy/source-row.js';
import { staticEntry, toJsonLines } from '../../reference/locations/legacy/static-export.js';
import { loadSubdivisions } from '../../reference/locations/legacy/subdivisions.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

let source: SourceRow[];
beforeAll(async () => {
  source = [];
  for await (const row of readSourceRows(GEO_EXCERPT_FILE)) source.push(row);
});

describe('static registry export', () => {
  it('writes exactly the reference fields, no ancestor caches', () => {
    const { entries } = deriveRegistry(source);
    const california = entries.find((entry) => entry.id === '21137')!;
    expect(staticEntry(california)).toEqual({
      location_id: '21137', name: 'California', canonical_name: 'California,United States', country_code: 'US',
      target_type: 'State', svc_level: 'REGION', parent_location_id: '2840',
    });
    const lines = toJsonLines(entries).trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(1779);
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(['location_id', 'name', 'canonical_name', 'country_code', 'target_type', 'svc_level', 'parent_location_id']);
    }
    // Parents come before their children, so a reader can build chains in one pass.
    const seen = new Set<string>();
    for (const line of lines) {
      if (line.parent_location_id !== null) expect(seen.has(line.parent_location_id)).toBe(true);
      seen.add(line.location_id);
    }
    expect(lines[0]).toEqual({
      location_id: '2004', name: 'Afghanistan', canonical_name: 'Afghanistan', country_code: 'AF', target_type: 'Country',
      svc_level: 'COUNTRY', parent_location_id: null,
    });
  });
});

describe('coverage report', () => {
  let report: CoverageReport;
  let rows: RegistryRow[];
  beforeAll(() => {
    const subdivisions = loadSubdivisions();
    rows = registryRows(source, subdivisions);
    report = coverageReport(rows, subdivisions, '2025-07-15');
  });

  it('counts regions with codes per country, largest countries first', () => {
    expect(report).toMatchObject({ regions: 1078, regions_with_codes: 1057, countries_with_regions: 55, top: 50 });
    expect(report.countries.slice(0, 3).map((country) => [country.country_code, country.regions])).toEqual([['RU', 82], ['TR', 81], ['US', 51]]);
    expect(report.countries.find((country) => country.country_code === 'US')).toMatchObject({
      regions: 51, regions_with_iso_3166_2: 51, first_level: 51, first_level_matched: 51, first_level_missing: [], fully_covered: true,
    });
  });

  it('counts units the provider lists as countries, and first levels covered by nested units', () => {
    expect(report.countries.find((country) => country.country_code === 'CN')).toMatchObject({
      first_level: 34, first_level_matched: 31, first_level_listed_as_country: 3, fully_covered: true,
    });
    expect(report.countries.find((country) => country.country_code === 'IE')).toMatchObject({
      first_level: 4, first_level_via_nested_units: 4, fully_covered: true,
    });
    expect(report.top_fully_covered).toBe(29);
  });
});
