import type { RegistryRow } from './build.js';
import { foldText, stripTypeWords } from './normalize.js';
import type { Subdivision, SubdivisionSource } from './subdivisions.js';

/**
 * How well the registry's regions carry external codes, per country (README.md, "Coverage").
 * A first-level subdivision counts as covered when a region carries its code, when regions carry
 * the codes of units nested in it (the provider lists e.g. Irish counties, not provinces), or
 * when the provider lists it as a country of its own (Hong Kong, Puerto Rico, Guadeloupe).
 */
export interface CountryCoverage {
  country_code: string;
  country_name: string;
  regions: number;
  regions_with_iso_3166_2: number;
  regions_with_cldr_subdivision: number;
  regions_with_provider_short: number;
  first_level: number;
  first_level_matched: number;
  first_level_via_nested_units: number;
  first_level_listed_as_country: number;
  first_level_missing: string[];
  regions_without_codes: string[];
  fully_covered: boolean;
}

export interface CoverageReport {
  code_sources: string;
  source_file_date: string;
  regions: number;
  regions_with_codes: number;
  countries_with_regions: number;
  top: number;
  top_fully_covered: number;
  countries: CountryCoverage[];
}

const key = (name: string) => stripTypeWords(foldText(name));

export function coverageReport(rows: RegistryRow[], source: SubdivisionSource, sourceFileDate: string, top = 50): CoverageReport {
  const countries = rows.filter((row) => row.level === 'COUNTRY');
  const countryKeys = new Map(countries.map((country) => [key(country.name), country.countryCode]));
  const listedAsCountry = (sub: Subdivision) =>
    sub.names.some((name) => {
      const owner = countryKeys.get(key(name));
      return owner !== undefined && owner !== sub.countryCode;
    });

  const regionsByCountry = new Map<string, RegistryRow[]>();
  for (const row of rows) {
    if (row.level === 'REGION') regionsByCountry.set(row.countryCode, [...(regionsByCountry.get(row.countryCode) ?? []), row]);
  }
  const perCountry: CountryCoverage[] = [];
  for (const country of countries) {
    const regions = regionsByCountry.get(country.countryCode) ?? [];
    if (regions.length === 0) continue;
    const used = new Set(regions.flatMap((region) => (region.match ? [region.match.subdivision.iso] : [])));
    const subs = source.byCountry.get(country.countryCode) ?? [];
    const first = subs.filter((sub) => sub.depth === 1);
    const matched = first.filter((sub) => used.has(sub.iso));
    const viaNested = first.filter((sub) => !used.has(sub.iso) && subs.some((inner) => inner.parentIso === sub.iso && used.has(inner.iso)));
    const asCountry = first.filter((sub) => !used.has(sub.iso) && !viaNested.includes(sub) && listedAsCountry(sub));
    const missing = first.filter((sub) => !matched.includes(sub) && !viaNested.includes(sub) && !asCountry.includes(sub));
    const withCodes = regions.filter((region) => region.match);
    perCountry.push({
      country_code: country.countryCode,
      country_name: country.name,
      regions: regions.length,
      regions_with_iso_3166_2: withCodes.length,
      regions_with_cldr_subdivision: withCodes.length,
      regions_with_provider_short: withCodes.length,
      first_level: first.length,
      first_level_matched: matched.length,
      first_level_via_nested_units: viaNested.length,
      first_level_listed_as_country: asCountry.length,
      first_level_missing: missing.map((sub) => `${sub.iso} ${sub.names[0] ?? ''}`.trim()),
      regions_without_codes: regions.filter((region) => !region.match).map((region) => `${region.id} ${region.name}`),
      fully_covered: first.length > 0 && missing.length === 0,
    });
  }
  perCountry.sort((a, b) => b.regions - a.regions || (a.country_code < b.country_code ? -1 : 1));
  const regionCount = perCountry.reduce((sum, country) => sum + country.regions, 0);
  const withCodes = perCountry.reduce((sum, country) => sum + country.regions_with_iso_3166_2, 0);
  return {
    code_sources: source.version,
    source_file_date: sourceFileDate,
    regions: regionCount,
    regions_with_codes: withCodes,
    countries_with_regions: perCountry.length,
    top,
    top_fully_covered: perCountry.slice(0, top).filter((country) => country.fully_covered).length,
    countries: perCountry,
  };
}

/** The report as a Markdown table, one row per country, largest first. */
export function coverageMarkdown(report: CoverageReport): string {
  const lines = [
    `# LEGACY registry code coverage (${report.source_file_date})`,
    '',
    `Code sources: ${report.code_sources}. Regions with codes: ${report.regions_with_codes} of ${report.regions}.`,
    `Top ${report.top} countries by region count fully covered: ${report.top_fully_covered}.`,
    '',
    '| # | country | regions | with ISO / CLDR / short | ISO first level | matched | via nested | listed as country | missing | regions without codes |',
    '|---:|---|---:|---|---:|---:|---:|---:|---|---|',
  ];
  report.countries.forEach((country, i) => {
    lines.push(`| ${i + 1} | ${country.country_code} ${country.country_name} | ${country.regions} | ` +
      `${country.regions_with_iso_3166_2} / ${country.regions_with_cldr_subdivision} / ${country.regions_with_provider_short} | ` +
      `${country.first_level} | ${country.first_level_matched} | ${country.first_level_via_nested_units} | ${country.first_level_listed_as_country} | ` +
      `${country.first_level_missing.join('; ')} | ${country.regions_without_codes.join('; ')} |`);
  });
  return `${lines.join('\n')}\n`;
}
