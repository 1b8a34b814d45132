import { beforeAll, describe, expect, it } from 'vitest';
import { readSourceRows } from '../../reference/locations/full/source-file.js';
import { deriveRegistry } from '../../reference/locations/legacy/derive.js';
import type { RegistryEntry, SourceRow } from '../../reference/locations/legacy/source-row.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

const row = (id: string, targetType: string, parentId: string | null, countryCode = 'XA', status = 'Active'): SourceRow => ({
  id, name: `n${id}`, canonicalName: `n${id}`, parentId, countryCode, targetType, status,
});
const byId = (entries: RegistryEntry[]) => new Map(entries.map((entry) => [entry.id, entry]));

describe('registry v1 derived from the real excerpt', () => {
  let entries: Map<string, RegistryEntry>;
  let all: RegistryEntry[];
  beforeAll(async () => {
    const rows: SourceRow[] = [];
    for await (const source of readSourceRows(GEO_EXCERPT_FILE)) rows.push(source);
    const derived = deriveRegistry(rows);
    all = derived.entries;
    entries = byId(all);
    expect(derived.unplacedCities).toEqual([]);
  });

  it('has one COUNTRY per country code of the release (218 Country rows and 27 top-level territories)', () => {
    const countries = all.filter((entry) => entry.level === 'COUNTRY');
    expect(countries).toHaveLength(245);
    expect(new Set(countries.map((entry) => entry.countryCode)).size).toBe(245);
    expect(new Set(all.map((entry) => entry.countryCode)).size).toBe(245);
    expect(all.filter((entry) => entry.level === 'REGION')).toHaveLength(1078);
    expect(all.filter((entry) => entry.level === 'CITY')).toHaveLength(456);
  });

  it('keeps ids, raw target types and immediate registry parents', () => {
    expect(entries.get('2840')).toEqual({
      id: '2840', name: 'United States', canonicalName: 'United States', countryCode: 'US', targetType: 'Country', level: 'COUNTRY', parentId: null,
    });
    expect(entries.get('21137')).toMatchObject({ name: 'California', targetType: 'State', level: 'REGION', parentId: '2840' });
    expect(entries.get('20278')).toMatchObject({ name: 'Catalonia', targetType: 'Autonomous Community', level: 'REGION', parentId: '2724' });
    expect(entries.get('20418')).toMatchObject({ name: 'Budapest', targetType: 'County', level: 'REGION', parentId: '2348' });
    expect(entries.get('1000286')).toMatchObject({ name: 'Sydney', targetType: 'City', level: 'CITY', parentId: '20035' });
    expect(entries.get('9061552')).toMatchObject({ name: 'Tallinn', level: 'CITY', parentId: '9061562' });
    // Austrian Municipality rows are towns: CITY under their state.
    expect(entries.get('1000801')).toMatchObject({ name: 'Altheim', targetType: 'Municipality', level: 'CITY', parentId: '20045' });
  });

  it('treats top-level territories and city-states as countries', () => {
    expect(entries.get('2702')).toMatchObject({ name: 'Singapore', targetType: 'Country', level: 'COUNTRY', parentId: null });
    expect(entries.get('2344')).toMatchObject({ name: 'Hong Kong', targetType: 'Region', level: 'COUNTRY', parentId: null });
    // Anguilla has no regions: its city hangs from the country.
    expect(entries.get('1000004')).toMatchObject({ name: 'The Valley', level: 'CITY', parentId: '2660' });
    // Kabul's source parent is outside the excerpt, and Afghanistan has no regions here.
    expect(entries.get('1000002')).toMatchObject({ name: 'Kabul', level: 'CITY', parentId: '2004' });
  });

  it('leaves out neighborhoods, postal codes, counties below states and provinces below communities', () => {
    for (const id of ['9061180', '9030359', '9000000', '20267']) expect(entries.has(id)).toBe(false);
  });

  it('gives every region a country parent and every city a region or country parent', () => {
    for (const entry of all) {
      const parent = entry.parentId === null ? undefined : entries.get(entry.parentId);
      if (entry.level === 'COUNTRY') expect(parent).toBeUndefined();
      if (entry.level === 'REGION') expect(parent?.level).toBe('COUNTRY');
      if (entry.level === 'CITY') expect(['REGION', 'COUNTRY']).toContain(parent?.level);
      if (parent) expect(parent.countryCode).toBe(entry.countryCode);
    }
  });
});

describe('registry v1 derivation rules', () => {
  it('skips inactive records and cities whose region cannot be verified where the country has regions', () => {
    const { entries, unplacedCities } = deriveRegistry([
      row('1', 'Country', null),
      row('10', 'State', '1'),
      row('11', 'State', '1', 'XA', 'Removal Planned'),
      row('100', 'City', '10'),
      row('101', 'City', '11'), // parent inactive: chain unresolved, country has regions
      row('102', 'City', '999'), // parent missing
      row('103', 'City', '10', 'XA', 'Removal Planned'),
    ]);
    expect(entries.map((entry) => [entry.id, entry.level, entry.parentId])).toEqual([
      ['1', 'COUNTRY', null], ['10', 'REGION', '1'], ['100', 'CITY', '10'],
    ]);
    expect(unplacedCities).toEqual(['101', '102']);
  });

  it('climbs through non-registry levels to the nearest region, and survives cycles', () => {
    const { entries } = deriveRegistry([
      row('1', 'Country', null),
      row('10', 'Autonomous Community', '1'),
      row('20', 'Province', '10'),
      row('30', 'County', '20'),
      row('300', 'City', '30'),
      row('40', 'Region', '41'),
      row('41', 'Region', '40'),
      row('400', 'City', '40'),
    ]);
    expect(byId(entries).get('300')?.parentId).toBe('10');
    expect(byId(entries).has('20')).toBe(false);
    expect(byId(entries).has('400')).toBe(false);
  });

  it('prefers the Country root when a code also has a territory root', () => {
    const { entries } = deriveRegistry([row('2', 'Region', null), row('3', 'Country', null), row('30', 'City', '2')]);
    expect(entries.filter((entry) => entry.level === 'COUNTRY').map((entry) => entry.id)).toEqual(['3']);
    // The city's verified root is not the registry country: it has no registry place.
    expect(byId(entries).has('30')).toBe(false);
  });
});
