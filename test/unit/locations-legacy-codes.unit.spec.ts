import { iso31662 } from 'iso-3166';
import { beforeAll, describe, expect, it } from 'vitest';
import { readSourceRows } from '../../reference/locations/full/source-file.js';
import { registryRows, type RegistryRow } from '../../reference/locations/legacy/build.js';
import { CODE_NAME_OVERRIDES, SUPERSEDED_CODES } from '../../reference/locations/legacy/code-overrides.js';
import { namesAgree } from '../../reference/locations/legacy/iso-agreement.js';
import { matchCountry, regionNames } from '../../reference/locations/legacy/match.js';
import { foldText } from '../../reference/locations/legacy/normalize.js';
import { PROVIDER_NAME_ALIASES } from '../../reference/locations/legacy/provider-aliases.js';
import { indexLocation, RegistryIndex } from '../../reference/locations/legacy/registry-index.js';
import type { SourceRow } from '../../reference/locations/legacy/source-row.js';
import { lookupSubdivision } from '../../reference/locations/legacy/subdivision-code.js';
import { loadSubdivisions, type Subdivision } from '../../reference/locations/legacy/subdivisions.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

/** ISO 3166-2's current names, straight from the published list. */
const ISO_NAMES = new Map(iso31662.map((entry) => [entry.code, entry.name]));
/** What a code means now, read from the sources themselves: the reviewed override, else ISO's name and reviewed names. */
const currentNamesOf = (code: string) =>
  CODE_NAME_OVERRIDES[code]?.names ?? [ISO_NAMES.get(code) ?? '', ...(PROVIDER_NAME_ALIASES[code] ?? [])].filter(Boolean);

describe('agreement of a region with a code\'s current ISO name', () => {
  it('is lenient about form: accents, type words, word order, transliterated adjectives and articles', () => {
    expect(namesAgree(['Baden-Wurttemberg'], ['Baden-Württemberg'])).toBe(true);
    expect(namesAgree(['Amur Oblast'], ["Amurskaya oblast'"])).toBe(true);
    expect(namesAgree(['Tomsk Oblast'], ["Tomskaya oblast'"])).toBe(true);
    expect(namesAgree(['West Java'], ['Jawa Barat'])).toBe(true);
    expect(namesAgree(['North Holland'], ['Noord-Holland'])).toBe(true);
    expect(namesAgree(['Faiyum Governorate'], ['Al Fayyūm'])).toBe(true);
    expect(namesAgree(['Saint Petersburg'], ['Sankt-Peterburg'])).toBe(true);
    expect(namesAgree(['Navarre'], ['Navarra, Comunidad Foral de'])).toBe(true);
  });

  it('is strict about identity: other places, and direction words that differ, never agree', () => {
    expect(namesAgree(['Meknes-Tafilalet'], ['Casablanca-Settat'])).toBe(false);
    expect(namesAgree(['Chaouia-Ouardigha'], ['Souss-Massa'])).toBe(false);
    expect(namesAgree(['North Carolina'], ['South Carolina'])).toBe(false);
    expect(namesAgree(['Upper Austria'], ['Lower Austria'])).toBe(false);
    expect(namesAgree(['Chiayi County'], ['Chiayi City'])).toBe(false);
  });
});

const sub = (iso: string, cldrName: string, isoName: string): Subdivision => ({
  iso, cldr: iso.replace('-', ''), short: iso.split('-')[1]!, countryCode: iso.slice(0, 2), depth: 1,
  names: [cldrName, isoName], currentNames: [isoName],
});
const region = (id: string, name: string) => ({ id, name, canonicalName: `${name},Testland`, countryCode: 'XA' });
const pairs = (matches: ReturnType<typeof matchCountry>) => matches.map((match) => [match.regionId, match.subdivision.iso]).sort();

describe('matching guarded by ISO names', () => {
  it('gives no code through a stale CLDR name, and finds the code whose ISO name agrees', () => {
    // CLDR still calls XA-06 by the name of the region the code meant before a reform.
    const subs = [sub('XA-06', 'Old North', 'Coast-Capital'), sub('XA-09', 'Old South', 'River Valley')];
    const matches = matchCountry([region('1', 'Old North'), region('2', 'River Valley Hills')], subs);
    expect(pairs(matches)).toEqual([['2', 'XA-09']]);
  });

  it('gives no code by a current name two candidate codes share', () => {
    const subs = [sub('XA-C', 'Twin County', 'Twin'), sub('XA-T', 'Twin', 'Twin')];
    expect(matchCountry([region('1', 'Twin County')], subs)).toEqual([]);
  });
});

describe('codes of the real excerpt against ISO 3166-2', () => {
  let rows: RegistryRow[];
  let byId: Map<string, RegistryRow>;
  beforeAll(async () => {
    const source: SourceRow[] = [];
    for await (const row of readSourceRows(GEO_EXCERPT_FILE)) source.push(row);
    rows = registryRows(source, loadSubdivisions());
    byId = new Map(rows.map((row) => [row.id, row]));
  });
  const regionWithCode = (code: string) => rows.find((row) => row.match?.subdivision.iso === code);
  const codesOf = (id: string) => {
    const found = byId.get(id)?.match?.subdivision;
    return found && [found.iso, found.cldr, found.short];
  };

  it('assigns every ISO code only to a region its current ISO name (or a reviewed name) agrees with', () => {
    const countryWords = new Map(rows.filter((row) => row.level === 'COUNTRY')
      .map((row) => [row.countryCode, new Set(foldText(row.name).split(' ').filter(Boolean))]));
    const assigned = rows.filter((row) => row.match);
    expect(assigned.length).toBeGreaterThan(1000);
    const disagreeing = assigned
      .filter((row) => !namesAgree(regionNames(row), currentNamesOf(row.match!.subdivision.iso), countryWords.get(row.countryCode)))
      .map((row) => `${row.match!.subdivision.iso} (ISO: ${ISO_NAMES.get(row.match!.subdivision.iso)}) on ${row.id} ${row.name}`);
    expect(disagreeing).toEqual([]);
    // Every code is current, and the CLDR and short codes are the ISO code's own.
    for (const row of assigned) {
      const { iso, cldr, short } = row.match!.subdivision;
      expect(ISO_NAMES.has(iso), iso).toBe(true);
      expect([cldr, short]).toEqual([iso.replace('-', ''), iso.split('-')[1]]);
    }
  });

  it('gives no Moroccan region a code ISO now uses for another region', () => {
    // The provider lists Morocco's pre-2015 regions; CLDR's English names are those regions' names.
    for (const code of ['MA-02', 'MA-03', 'MA-05', 'MA-06', 'MA-07', 'MA-10', 'MA-12']) expect(regionWithCode(code), code).toBeUndefined();
    for (const id of ['21524', '21525', '21526', '21527', '21532', '21534', '21536', '21538']) expect(codesOf(id), id).toBeUndefined();
    // Where the current region's name is part of the older region's, the code follows the name.
    expect(codesOf('21535')).toEqual(['MA-09', 'MA09', '09']); // Souss-Massa-Draa ~ Souss-Massa
    expect(codesOf('21530')).toEqual(['MA-11', 'MA11', '11']); // Laayoune-Boujdour-Sakia El Hamra ~ Laâyoune-Sakia El Hamra
  });

  it('gives Chiayi County the county\'s code, not the city\'s', () => {
    expect(codesOf('21096')).toEqual(['TW-CYQ', 'TWCYQ', 'CYQ']);
    expect(regionWithCode('TW-CYI')).toBeUndefined();
    expect(codesOf('21097')).toEqual(['TW-HSQ', 'TWHSQ', 'HSQ']); // Hsinchu County
  });

  it('gives Ngazidja the code of Grande Comore, whose Shikomor name ISO 3166-2 lists as Ngazidja', () => {
    expect(codesOf('21271')).toEqual(['KM-G', 'KMG', 'G']);
  });

  it('resolves superseded Indian codes, in every form, to the region carrying the current code', () => {
    const locations = rows.map((row) => indexLocation(row, row.match
      ? { iso_3166_2: row.match.subdivision.iso, cldr_subdivision: row.match.subdivision.cldr, provider_short: row.match.subdivision.short }
      : {}));
    const index = new RegistryIndex(locations, '2025-07-15');
    for (const [old, { current }] of Object.entries(SUPERSEDED_CODES)) {
      expect(ISO_NAMES.has(old), `${old} is no current ISO code`).toBe(false);
      const region = lookupSubdivision(index, current, 'AUTO')?.location;
      expect(region?.codes.iso_3166_2, current).toBe(current);
      expect(lookupSubdivision(index, old, 'AUTO')?.location, old).toBe(region);
      expect(lookupSubdivision(index, old.replace('-', ''), 'CLDR')?.location, old).toBe(region);
      expect(lookupSubdivision(index, old.slice(3), 'PROVIDER_SHORT', 'IN')?.location, old).toBe(region);
    }
    expect(lookupSubdivision(index, 'IN-CT', 'ISO_3166_2')?.location.name).toBe('Chhattisgarh');
    expect(lookupSubdivision(index, 'in-or', 'AUTO')?.location.name).toBe('Odisha');
    expect(lookupSubdivision(index, 'TG', 'PROVIDER_SHORT', 'IN')?.location.name).toBe('Telangana');
    expect(lookupSubdivision(index, 'INUT', 'AUTO')?.location.name).toBe('Uttarakhand');
    // An alias never reaches outside its country.
    expect(lookupSubdivision(index, 'IN-CT', 'AUTO', 'US')).toBeUndefined();
  });
});
