import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldText } from '../../reference/locations/legacy/normalize.js';
import { indexLocation, RegistryIndex } from '../../reference/locations/legacy/registry-index.js';
import { rank, rankAll } from '../../reference/locations/legacy/search.js';
import type { ExternalCodes, Level } from '../../reference/locations/legacy/source-row.js';
import { CodeInputError, lookupSubdivision } from '../../reference/locations/legacy/subdivision-code.js';

const place = (id: string, name: string, level: Level, parentId: string | null, countryCode: string, codes: ExternalCodes = {}) =>
  indexLocation({ id, name, canonicalName: name, countryCode, targetType: level === 'CITY' ? 'City' : level === 'REGION' ? 'State' : 'Country', level, parentId }, codes);

const index = new RegistryIndex([
  place('2840', 'United States', 'COUNTRY', null, 'US'),
  place('2124', 'Canada', 'COUNTRY', null, 'CA'),
  place('21137', 'California', 'REGION', '2840', 'US', { iso_3166_2: 'US-CA', cldr_subdivision: 'USCA', provider_short: 'CA' }),
  place('21180', 'Washington', 'REGION', '2840', 'US', { iso_3166_2: 'US-WA', cldr_subdivision: 'USWA', provider_short: 'WA' }),
  place('20121', 'Ontario', 'REGION', '2124', 'CA', { iso_3166_2: 'CA-ON', cldr_subdivision: 'CAON', provider_short: 'ON' }),
  place('1', 'San José', 'CITY', '21137', 'US'),
  place('2', 'North San Jose', 'CITY', '21137', 'US'),
  place('3', 'Jose Bay', 'CITY', '21137', 'US'),
  place('4', 'Sanjoseville', 'CITY', '21137', 'US'),
  place('5', 'San Jose', 'REGION', '2124', 'CA'),
  place('6', 'Cala', 'CITY', '20121', 'CA'),
], '2025-07-15');

const ids = (query: string | undefined, limit = 20) => rank(index.ordered, query, limit).locations.map((location) => location.id);

describe('LEGACY search ranking', () => {
  it('ranks exact id or code, then name prefix, then word prefix, then substring, then country code; ties by level, name, id', () => {
    expect(ids('san jose')).toEqual(['5', '1', '2']);
    expect(ids('jose')).toEqual(['3', '5', '2', '1', '4']);
    // Canada by its code, names starting with "ca", then the rest of Canada's entries.
    expect(ids('ca')).toEqual(['2124', '21137', '6', '20121', '5']);
    expect(ids('US-CA')).toEqual(['21137']);
    expect(ids('usca')).toEqual(['21137']);
    expect(ids('21180')).toEqual(['21180']);
  });

  it('is case- and accent-insensitive', () => {
    expect(ids('SAN JOSÉ')).toEqual(ids('san jose'));
    expect(ids('ÓNTÁRIO')).toEqual(['20121']);
  });

  it('matches the location id as q folds, as FULL does: full-width digits are the id', () => {
    expect(ids('\uFF12\uFF11\uFF11\uFF18\uFF10')).toEqual(['21180']);
    expect(rankAll(index, '\uFF12\uFF11\uFF11\uFF18\uFF10', 20).locations.map((location) => location.id)).toEqual(['21180']);
    expect(ids(' 21180 ')).toEqual(['21180']);
  });

  it('matches a country code as FULL does: every entry of that country, after those whose names hold it, within the narrowing', () => {
    expect(ids('us')).toEqual(['2840', '21137', '21180', '3', '2', '1', '4']);
    expect(rankAll(index, 'us', 20).locations.map((location) => location.id)).toEqual(ids('us'));
    expect(rankAll(index, 'us', 20, (location) => location.level === 'CITY', { country: 'US', levels: new Set(['CITY']) }).locations.map((location) => location.id)).toEqual(['3', '2', '1', '4']);
    expect(rankAll(index, 'us', 20, (location) => location.countryCode === 'CA', { country: 'CA' }).locations).toEqual([]);
    // Resolve's city text matches names (and codes), not the country's entries by its code.
    expect(rank(index.ordered, 'us', 20, () => true, false).locations.map((location) => location.id)).toEqual(['2840']);
  });

  it('browses in level, name, id order without a query and reports more pages', () => {
    expect(ids(undefined, 3)).toEqual(['2124', '2840', '21137']);
    expect(rank(index.ordered, undefined, 3).hasMore).toBe(true);
    expect(rank(index.ordered, 'ontario', 3).hasMore).toBe(false);
  });

  it('returns at most limit locations, each matching the query', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'sanjoecl '), minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 50 }), (query, limit) => {
      const folded = foldText(query);
      fc.pre(folded !== '');
      const { locations } = rank(index.ordered, query, limit);
      expect(locations.length).toBeLessThanOrEqual(limit);
      for (const location of locations) expect(location.folded.includes(folded) || location.aliases.includes(folded) || location.countryCode === folded.toUpperCase()).toBe(true);
    }));
  });

  it('ranks the whole registry by one scan exactly as the per-location ranking does', () => {
    const queries = fc.oneof(fc.string({ unit: fc.constantFrom(...'sanjoecltr -'), minLength: 1, maxLength: 6 }), fc.constantFrom('US-CA', 'usca', 'CA', '21180', '1'));
    fc.assert(fc.property(queries, fc.integer({ min: 1, max: 12 }), fc.constantFrom(undefined, 'US', 'CA'), (query, limit, country) => {
      fc.pre(foldText(query) !== '');
      const keep = (location: { countryCode: string }) => country === undefined || location.countryCode === country;
      const scanned = rankAll(index, query, limit, keep);
      const looped = rank(index.ordered, query, limit, keep);
      expect(scanned.locations.map((location) => location.id)).toEqual(looped.locations.map((location) => location.id));
      if (scanned.locations.length < limit) expect(scanned.hasMore).toBe(looped.hasMore);
    }));
  });

  it('browses the cascade: country children, region children, all descendants', () => {
    expect(index.childrenOf('2840').map((location) => location.id)).toEqual(['21137', '21180']);
    expect(index.childrenOf('21137').map((location) => location.id)).toEqual(['3', '2', '1', '4']);
    expect(index.descendantsOf('2124').map((location) => location.id)).toEqual(['20121', '5', '6']);
    expect(index.pathOf(index.byId.get('1')!).map((location) => location.id)).toEqual(['2840', '21137', '1']);
  });
});

describe('reading subdivision codes', () => {
  const found = (code: string, type: Parameters<typeof lookupSubdivision>[2], country?: string) => {
    const match = lookupSubdivision(index, code, type, country);
    return match && [match.location.id, match.matchedAs];
  };

  it('reads ISO, CLDR and provider short codes to the same region, in any letter case', () => {
    expect(found('US-CA', 'AUTO')).toEqual(['21137', 'ISO_3166_2']);
    expect(found('usca', 'AUTO')).toEqual(['21137', 'CLDR']);
    expect(found('CA', 'AUTO', 'US')).toEqual(['21137', 'PROVIDER_SHORT']);
    expect(found('ca', 'PROVIDER_SHORT', 'US')).toEqual(['21137', 'PROVIDER_SHORT']);
    expect(found('us-ca', 'ISO_3166_2')).toEqual(['21137', 'ISO_3166_2']);
    expect(found('USCA', 'CLDR', 'US')).toEqual(['21137', 'CLDR']);
    expect(found('ON', 'AUTO', 'CA')).toEqual(['20121', 'PROVIDER_SHORT']);
  });

  it('finds nothing outside the given country or for unknown codes', () => {
    expect(found('US-CA', 'AUTO', 'CA')).toBeUndefined();
    expect(found('US-ZZ', 'ISO_3166_2')).toBeUndefined();
    expect(found('ZZ', 'AUTO', 'US')).toBeUndefined();
    expect(found('USZZ', 'AUTO')).toBeUndefined();
  });

  it('rejects codes that do not fit their type, and short codes without a country', () => {
    const error = (code: string, type: Parameters<typeof lookupSubdivision>[2], country?: string) => {
      try {
        lookupSubdivision(index, code, type, country);
      } catch (caught) {
        return caught instanceof CodeInputError ? caught.parameter : 'other';
      }
      return 'none';
    };
    expect(error('CA', 'AUTO')).toBe('country');
    expect(error('CA', 'PROVIDER_SHORT')).toBe('country');
    expect(error('CAL', 'AUTO')).toBe('country'); // not a CLDR code; as a short code it needs a country
    expect(error('USCA', 'ISO_3166_2')).toBe('subdivision_code');
    expect(error('US-CA', 'CLDR')).toBe('subdivision_code');
    expect(error('CALI', 'PROVIDER_SHORT', 'US')).toBe('subdivision_code');
    expect(error('U S', 'AUTO')).toBe('subdivision_code');
    expect(error('US-CALI', 'AUTO')).toBe('subdivision_code');
  });
});

describe('LEGACY text index on random registries', () => {
  const LETTERS = ['a', 'b', 's', 'á', ' ', '-', "'", '𝔞', '1'];
  const name = fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 1, maxLength: 7 }).filter((value) => foldText(value) !== '');
  const registry = fc
    .array(fc.record({ name, country: fc.constantFrom('AA', 'BB', 'SA'), level: fc.constantFrom<Level>('COUNTRY', 'REGION', 'CITY') }), { minLength: 1, maxLength: 50 })
    .map((drafts) =>
      drafts.map((d, i) => place(String(100 + ((i * 37) % 101)), d.name, d.level, d.level === 'COUNTRY' ? null : '1', d.country, d.level === 'REGION' && i % 3 === 0 ? { iso_3166_2: `${d.country}-B${i}` } : {})),
    );

  it('ranks the whole registry through the index exactly as rank() does location by location, narrowed or not', () => {
    fc.assert(
      fc.property(
        registry,
        fc.oneof(name, fc.constantFrom('sa', 'aa', 'SA-B3', '100', 'a b', 'b a')),
        fc.integer({ min: 1, max: 8 }),
        fc.option(fc.constantFrom('AA', 'BB', 'SA', 'ZZ'), { nil: undefined }),
        fc.option(fc.subarray<Level>(['COUNTRY', 'REGION', 'CITY'], { minLength: 1 }), { nil: undefined }),
        fc.constantFrom(0, 3, 10_000),
        (locations, query, limit, country, levelList, gatherLimit) => {
          const registryIndex = new RegistryIndex(locations, '2025-07-15', { gatherLimit });
          const levels = levelList && new Set(levelList);
          const keep = (location: { countryCode: string; level: Level }) =>
            (country === undefined || location.countryCode === country) && (levels === undefined || levels.has(location.level));
          const narrowing = { ...(country !== undefined && { country }), ...(levels !== undefined && { levels }) };
          const indexed = rankAll(registryIndex, query, limit, keep, narrowing);
          const looped = rank(registryIndex.ordered, query, limit, keep);
          expect(indexed.locations.map((location) => location.id)).toEqual(looped.locations.map((location) => location.id));
          expect(indexed.hasMore).toBe(looped.hasMore);
        },
      ),
      { numRuns: 500 },
    );
  });
});
