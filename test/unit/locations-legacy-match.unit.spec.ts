import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSourceRows } from '../../reference/locations/full/source-file.js';
import { registryRows, type RegistryRow } from '../../reference/locations/legacy/build.js';
import { editDistance } from '../../reference/locations/legacy/edit-distance.js';
import { matchCountry } from '../../reference/locations/legacy/match.js';
import { foldText, stripTypeWords } from '../../reference/locations/legacy/normalize.js';
import type { SourceRow } from '../../reference/locations/legacy/source-row.js';
import { loadSubdivisions, type Subdivision } from '../../reference/locations/legacy/subdivisions.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

describe('text folding', () => {
  it('ignores case, accents and punctuation', () => {
    expect(foldText('Baden-Württemberg')).toBe('baden wurttemberg');
    expect(foldText("Provence-Alpes-Côte d'Azur")).toBe('provence alpes cote dazur');
    expect(foldText('Łódź  Voivodeship')).toBe('lodz voivodeship');
    expect(foldText('North Ossetia–Alania Republic')).toBe('north ossetia alania republic');
    expect(foldText(' -- ')).toBe('');
  });

  it('is idempotent, case-blind and yields only lower-case letters, digits and single spaces', () => {
    // Place-name alphabet: Latin letters with and without accents, digits, the punctuation names use.
    const letters = [...'abcxyzABCXYZ019 -\',.()/[]&ÀàÉéÎîÕõÜüÇçÑñØøßĐđŁłŌōĞğİıÅåÆæŒœ–’\u0301\u0308'];
    const text = fc.string({ unit: fc.constantFrom(...letters), maxLength: 40 });
    fc.assert(fc.property(text, (text) => {
      const folded = foldText(text);
      expect(foldText(folded)).toBe(folded);
      expect(foldText(text.toUpperCase())).toBe(foldText(text.toLowerCase()));
      expect(folded).not.toMatch(/^ | $| {2}|\p{M}|\p{Lu}/u);
    }));
  });

  it('removes type, filler and country words, but never everything', () => {
    expect(stripTypeWords(foldText('State of Sao Paulo'))).toBe('sao paulo');
    expect(stripTypeWords(foldText('Moscow Oblast'))).toBe('moscow');
    expect(stripTypeWords(foldText('Southern District'))).toBe('south');
    expect(stripTypeWords(foldText('Capital Region of Denmark'), new Set(['denmark']))).toBe('capital region');
  });

  it('measures small edit distances', () => {
    expect(editDistance('navarre', 'navarra')).toBe(1);
    expect(editDistance('menofia', 'monufia')).toBe(2);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('corsica', 'corse')).toBe(3);
  });
});

const sub = (iso: string, names: string[], depth: 1 | 2 = 1, parentIso?: string): Subdivision => ({
  iso, cldr: iso.replace('-', ''), short: iso.split('-')[1]!, countryCode: iso.slice(0, 2), depth, names, currentNames: names,
  ...(parentIso ? { parentIso } : {}),
});
const region = (id: string, name: string) => ({ id, name, canonicalName: `${name},Testland`, countryCode: 'XA' });

describe('matching regions to subdivisions', () => {
  it('never gives a code on an ambiguous name', () => {
    const matches = matchCountry([region('1', 'Georgia State'), region('2', 'Georgia Province')], [sub('XA-GA', ['Georgia'])]);
    expect(matches).toEqual([]);
  });

  it('takes forced pairs: the only candidate of one side', () => {
    const matches = matchCountry(
      [region('1', 'Buenos Aires Province'), region('2', 'Buenos Aires')],
      [sub('XA-B', ['Buenos Aires Province', 'Buenos Aires']), sub('XA-C', ['Buenos Aires', 'Ciudad Autonoma de Buenos Aires'])],
    );
    expect(matches.map((match) => [match.regionId, match.subdivision.iso]).sort()).toEqual([['1', 'XA-B'], ['2', 'XA-C']]);
  });

  it('uses nested units only where the provider has more regions than first-level units', () => {
    const subs = [sub('XA-L', ['Leinster']), sub('XA-D', ['Dublin'], 2, 'XA-L'), sub('XA-KE', ['Kildare'], 2, 'XA-L')];
    expect(matchCountry([region('1', 'County Dublin')], subs)).toEqual([]);
    const matches = matchCountry([region('1', 'County Dublin'), region('2', 'County Kildare')], subs);
    expect(matches.map((match) => match.subdivision.iso).sort()).toEqual(['XA-D', 'XA-KE']);
  });
});

describe('codes of the real excerpt', () => {
  let rows: Map<string, RegistryRow>;
  beforeAll(async () => {
    const source: SourceRow[] = [];
    for await (const row of readSourceRows(GEO_EXCERPT_FILE)) source.push(row);
    rows = new Map(registryRows(source, loadSubdivisions()).map((row) => [row.id, row]));
  });
  const codes = (id: string) => {
    const found = rows.get(id)?.match?.subdivision;
    return found && [found.iso, found.cldr, found.short];
  };

  it('matches well-known regions in several countries', () => {
    expect(codes('21137')).toEqual(['US-CA', 'USCA', 'CA']); // California
    expect(codes('21140')).toEqual(['US-DC', 'USDC', 'DC']); // District of Columbia (ISO name)
    expect(codes('20231')).toEqual(['DE-HE', 'DEHE', 'HE']); // Hessen (ISO name; CLDR says Hesse)
    expect(codes('20229')).toEqual(['DE-BY', 'DEBY', 'BY']); // Bavaria
    expect(codes('20121')).toEqual(['CA-ON', 'CAON', 'ON']); // Ontario
    expect(codes('20636')).toEqual(['JP-13', 'JP13', '13']); // Tokyo
    expect(codes('20106')).toEqual(['BR-SP', 'BRSP', 'SP']); // State of Sao Paulo
    expect(codes('20278')).toEqual(['ES-CT', 'ESCT', 'CT']); // Catalonia
    expect(codes('20462')).toEqual(['IN-MH', 'INMH', 'MH']); // Maharashtra
    expect(codes('20035')).toEqual(['AU-NSW', 'AUNSW', 'NSW']); // New South Wales
    expect(codes('20703')).toEqual(['MX-CMX', 'MXCMX', 'CMX']); // Mexico City
    expect(codes('20709')).toEqual(['MX-MEX', 'MXMEX', 'MEX']); // State of Mexico
  });

  it('gives codes to regions only, never twice', () => {
    const matched = [...rows.values()].filter((row) => row.match);
    expect(matched.every((row) => row.level === 'REGION')).toBe(true);
    expect(new Set(matched.map((row) => row.match!.subdivision.iso)).size).toBe(matched.length);
    expect(matched).toHaveLength(1057);
  });

  it('matches every US state and every German, Japanese and Brazilian region', () => {
    for (const country of ['US', 'DE', 'JP', 'BR']) {
      const regions = [...rows.values()].filter((row) => row.level === 'REGION' && row.countryCode === country);
      expect(regions.filter((row) => !row.match).map((row) => row.name)).toEqual([]);
    }
  });
});
