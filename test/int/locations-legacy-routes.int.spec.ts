import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { createTestApp } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

let testApp: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  testApp = await createTestApp();
  // The real FULL loader; it builds the LEGACY registry at the end of the load.
  await loadFullCatalog(testApp.runtime.db, { file: GEO_EXCERPT_FILE });
});
afterAll(async () => {
  await testApp?.close();
});

async function get(url: string) {
  const response = await testApp.app.inject({ method: 'GET', url });
  return { status: response.statusCode, body: response.json() };
}
async function ok(url: string) {
  const { status, body } = await get(url);
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.code).toBe('SUCCESS');
  expect(body.message).toBe('');
  return body;
}
async function fails(url: string, status: number, code: string, mentions: string) {
  const response = await get(url);
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body.code).toBe(code);
  expect(response.body.data).toEqual({});
  expect(response.body.message).toContain(mentions);
  return response.body;
}
const names = (body: { data: { locations: { name: string }[] } }) => body.data.locations.map((location) => location.name);

const US = { location_id: '2840', name: 'United States', level: 'COUNTRY' };
const CALIFORNIA_NODE = { location_id: '21137', name: 'California', level: 'REGION' };
const CALIFORNIA = {
  location_id: '21137', name: 'California', canonical_name: 'California,United States', country_code: 'US',
  target_type: 'State', level: 'REGION', parent_location_id: '2840', path: [US, CALIFORNIA_NODE],
  external_codes: { iso_3166_2: 'US-CA', cldr_subdivision: 'USCA', provider_short: 'CA' },
};

describe('GET /v1/locations/{id} (LEGACY)', () => {
  it('returns a region with its path, chain, codes and only the LEGACY catalog fields', async () => {
    const body = await ok('/v1/locations/21137');
    expect(body.data).toEqual({
      registry_version: 'v1', source_file_date: '2025-07-15', location: CALIFORNIA, path: [US, CALIFORNIA_NODE], location_ids: ['21137', '2840'],
    });
    expect(body.extra).toEqual({});
  });

  it('returns a country, a city-state, a top-level territory and cities with their registry parents', async () => {
    const us = await ok('/v1/locations/2840?catalog=LEGACY');
    expect(us.data.location).toEqual({
      location_id: '2840', name: 'United States', canonical_name: 'United States', country_code: 'US', target_type: 'Country',
      level: 'COUNTRY', parent_location_id: null, path: [US],
    });
    const singapore = await ok('/v1/locations/2702');
    expect(singapore.data.location).toMatchObject({ name: 'Singapore', level: 'COUNTRY', target_type: 'Country', parent_location_id: null });
    expect(singapore.data.location_ids).toEqual(['2702']);
    const hongKong = await ok('/v1/locations/2344');
    expect(hongKong.data.location).toMatchObject({ name: 'Hong Kong', country_code: 'HK', target_type: 'Region', level: 'COUNTRY' });
    const sydney = await ok('/v1/locations/1000286');
    expect(sydney.data.location_ids).toEqual(['1000286', '20035', '2036']);
    expect(sydney.data.path.map((node: { name: string }) => node.name)).toEqual(['Australia', 'New South Wales', 'Sydney']);
    // Anguilla has no regions: The Valley's registry parent is the country.
    const valley = await ok('/v1/locations/1000004');
    expect(valley.data.location).toMatchObject({ name: 'The Valley', level: 'CITY', parent_location_id: '2660', target_type: 'City' });
    expect(valley.data.location_ids).toEqual(['1000004', '2660']);
  });

  it('never returns FULL-only fields', async () => {
    const body = await ok('/v1/locations/1000286');
    for (const field of ['catalog', 'catalog_version']) expect(body.data).not.toHaveProperty(field);
    for (const field of ['source_parent_location_id', 'hierarchy_precision', 'legacy_level', 'chain_status']) {
      expect(body.data.location).not.toHaveProperty(field);
    }
    expect(body.data.location).not.toHaveProperty('external_codes');
  });

  it('answers 404 for ids outside the registry and 400 for malformed ids or parameters', async () => {
    await fails('/v1/locations/9061180', 404, 'NOT_FOUND', '9061180'); // La Jolla: a neighborhood, FULL only
    await fails('/v1/locations/99999999', 404, 'NOT_FOUND', '99999999');
    await fails('/v1/locations/abc', 400, 'BAD_REQUEST', 'location_id');
    await fails('/v1/locations/2840?locale=en&locale=fr', 400, 'BAD_REQUEST', 'locale');
    await fails('/v1/locations/2840?catalog=legacy', 400, 'BAD_REQUEST', 'catalog');
    await fails('/v1/locations/2840?catalog=LEGACY&catalog=LEGACY', 400, 'BAD_REQUEST', 'catalog');
  });
});

describe('GET /v1/locations/resolve (LEGACY)', () => {
  it('normalizes ISO, CLDR and provider short codes to the same region', async () => {
    for (const [query, type] of [
      ['subdivision_code=US-CA', 'ISO_3166_2'],
      ['subdivision_code=USCA', 'CLDR'],
      ['subdivision_code=CA&country=US', 'PROVIDER_SHORT'],
      ['subdivision_code=us-ca&subdivision_code_type=ISO_3166_2', 'ISO_3166_2'],
      ['subdivision_code=ca&subdivision_code_type=PROVIDER_SHORT&country=US', 'PROVIDER_SHORT'],
    ] as const) {
      const body = await ok(`/v1/locations/resolve?${query}`);
      expect(body.data).toEqual({
        registry_version: 'v1', source_file_date: '2025-07-15', location: CALIFORNIA, path: [US, CALIFORNIA_NODE],
        location_ids: ['21137', '2840'], candidates: [CALIFORNIA],
      });
      expect(body.extra).toEqual({ subdivision_code_type: type });
    }
  });

  it('resolves codes in other countries', async () => {
    const cases: [string, string][] = [['DE-BY', '20229'], ['JP-13', '20636'], ['BR-SP', '20106'], ['CA-ON', '20121'], ['MX-CMX', '20703'], ['ESCT', '20278']];
    for (const [code, id] of cases) expect((await ok(`/v1/locations/resolve?subdivision_code=${code}`)).data.location.location_id).toBe(id);
  });

  it('resolves superseded Indian codes to the region carrying the current code, which is the one it shows', async () => {
    const pairs: [string, string, string][] = [
      ['IN-CT', 'IN-CG', 'Chhattisgarh'], ['IN-OR', 'IN-OD', 'Odisha'], ['IN-TG', 'IN-TS', 'Telangana'], ['IN-UT', 'IN-UK', 'Uttarakhand'],
    ];
    for (const [old, current, name] of pairs) {
      const byOld = await ok(`/v1/locations/resolve?subdivision_code=${old}`);
      const byCurrent = await ok(`/v1/locations/resolve?subdivision_code=${current}`);
      expect(byOld.data.location).toEqual(byCurrent.data.location);
      expect(byOld.data.location).toMatchObject({
        name, level: 'REGION', external_codes: { iso_3166_2: current, cldr_subdivision: current.replace('-', ''), provider_short: current.slice(3) },
      });
      // The code that found it is not among the codes it shows: said in a warning.
      expect(byOld.extra).toEqual({ subdivision_code_type: 'ISO_3166_2', warnings: [expect.stringMatching(new RegExp(`^subdivision_code ${old} is a former code of ${name}, now ${current} \\(`))] });
      expect(byCurrent.extra).toEqual({ subdivision_code_type: 'ISO_3166_2' });
    }
    // The provider short form, as region headers carry it.
    expect((await ok('/v1/locations/resolve?subdivision_code=TG&country=IN')).data.location.name).toBe('Telangana');
  });

  it('resolves the ISO 3166-2 code of a territory the catalog lists as a country to that country', async () => {
    for (const [code, id, name] of [['US-AS', '2016', 'American Samoa'], ['USGU', '2316', 'Guam'], ['FR-PF', '2258', 'French Polynesia'], ['NL-BQ2', '2535', 'Caribbean Netherlands']]) {
      const body = await ok(`/v1/locations/resolve?subdivision_code=${code}`);
      expect(body.data.location).toMatchObject({ location_id: id, name, level: 'COUNTRY' });
      expect(body.data.location_ids).toEqual([id]);
      expect(body.extra.warnings).toEqual([`subdivision_code ${code} is ISO 3166-2's code for ${name}, which the catalog lists as a country of its own (${body.data.location.country_code}); that entry is answered`]);
    }
    // The catalog does not place the territory in the country whose code it carries.
    await fails('/v1/locations/resolve?subdivision_code=US-AS&country=US', 404, 'NOT_FOUND', 'US-AS');
    // Not the provider short form: "AS" under US is no code the provider uses.
    await fails('/v1/locations/resolve?subdivision_code=AS&country=US', 404, 'NOT_FOUND', 'AS');
  });

  it('gives Moroccan and Taiwanese regions only codes whose current ISO name is theirs', async () => {
    // MA-06 is Casablanca-Settat now; the provider's Meknes-Tafilalet (a pre-2015 region) has no current code.
    await fails('/v1/locations/resolve?subdivision_code=MA-06', 404, 'NOT_FOUND', 'MA-06');
    expect((await ok('/v1/locations/21532')).data.location).not.toHaveProperty('external_codes');
    // TW-CYQ is Chiayi County; TW-CYI is Chiayi City, which the excerpt does not list.
    expect((await ok('/v1/locations/resolve?subdivision_code=TW-CYQ')).data.location).toMatchObject({ location_id: '21096', name: 'Chiayi County' });
    await fails('/v1/locations/resolve?subdivision_code=TW-CYI', 404, 'NOT_FOUND', 'TW-CYI');
  });

  it('resolves a country alone, and a city under a country or a subdivision', async () => {
    const au = await ok('/v1/locations/resolve?country=AU');
    expect(au.data.location.location_id).toBe('2036');
    expect(au.data.candidates.map((candidate: { location_id: string }) => candidate.location_id)).toEqual(['2036']);
    const sydney = await ok('/v1/locations/resolve?country=AU&city=sydn');
    expect(sydney.data.location).toMatchObject({ location_id: '1000286', name: 'Sydney', level: 'CITY', parent_location_id: '20035' });
    expect(sydney.data.location_ids).toEqual(['1000286', '20035', '2036']);
    const underState = await ok('/v1/locations/resolve?subdivision_code=AU-NSW&city=SYDNEY');
    expect(underState.data.location.location_id).toBe('1000286');
    const singapore = await ok('/v1/locations/resolve?country=SG');
    expect(singapore.data.location_ids).toEqual(['2702']);
  });

  it('warns when the city it picked shares its name with other candidates, and only then', async () => {
    const heraklion = await ok('/v1/locations/resolve?country=GR&city=heraklion');
    const namesakes = heraklion.data.candidates.filter((candidate: { name: string }) => candidate.name === 'Heraklion');
    expect(namesakes.length).toBeGreaterThan(1);
    expect(heraklion.data.location).toEqual(namesakes[0]);
    expect(heraklion.extra.warnings).toEqual([expect.stringMatching(/^city "heraklion" matches \d+ locations named "Heraklion" in Greece; location is the first of candidates/)]);
    const withLocale = await ok('/v1/locations/resolve?country=GR&city=heraklion&locale=el');
    expect(withLocale.extra.warnings).toHaveLength(2);
    expect((await ok('/v1/locations/resolve?country=AU&city=sydn')).extra).toEqual({ pagination: { limit: 10, returned: 1, has_more: false } });
  });

  it('limits candidates, best first', async () => {
    const body = await ok('/v1/locations/resolve?country=AT&city=a&limit=3');
    expect(body.data.candidates).toHaveLength(3);
    expect(body.data.location).toEqual(body.data.candidates[0]);
    expect(body.extra.pagination.has_more).toBe(true);
  });

  it('answers 404 for what the registry cannot resolve', async () => {
    await fails('/v1/locations/resolve?subdivision_code=US-ZZ', 404, 'NOT_FOUND', 'US-ZZ');
    await fails('/v1/locations/resolve?subdivision_code=US-CA&country=DE', 404, 'NOT_FOUND', 'US-CA');
    await fails('/v1/locations/resolve?country=ZZ', 404, 'NOT_FOUND', 'ZZ');
    await fails('/v1/locations/resolve?country=AU&city=atlantis', 404, 'NOT_FOUND', 'atlantis');
    await fails('/v1/locations/resolve?subdivision_code=US-CA&city=sydney', 404, 'NOT_FOUND', 'sydney');
  });

  it('answers 400 naming the parameter for input LEGACY cannot read', async () => {
    await fails('/v1/locations/resolve', 400, 'BAD_REQUEST', 'subdivision_code');
    await fails('/v1/locations/resolve?city=sydney', 400, 'BAD_REQUEST', 'city');
    await fails('/v1/locations/resolve?subdivision_code=CA', 400, 'BAD_REQUEST', 'country');
    await fails('/v1/locations/resolve?subdivision_code=CA&subdivision_code_type=PROVIDER_SHORT', 400, 'BAD_REQUEST', 'country');
    await fails('/v1/locations/resolve?subdivision_code=USCA&subdivision_code_type=ISO_3166_2', 400, 'BAD_REQUEST', 'subdivision_code');
    await fails('/v1/locations/resolve?subdivision_code=US-CA&subdivision_code_type=ISO', 400, 'BAD_REQUEST', 'subdivision_code_type');
    await fails('/v1/locations/resolve?country=US&subdivision_code_type=CLDR', 400, 'BAD_REQUEST', 'subdivision_code_type');
    await fails('/v1/locations/resolve?location_id=2840', 400, 'BAD_REQUEST', 'location_id');
    await fails('/v1/locations/resolve?country=USA', 400, 'BAD_REQUEST', 'country');
    await fails('/v1/locations/resolve?country=us', 400, 'BAD_REQUEST', 'country');
    await fails('/v1/locations/resolve?country=US&limit=0', 400, 'BAD_REQUEST', 'limit');
    await fails('/v1/locations/resolve?country=US&limit=51', 400, 'BAD_REQUEST', 'limit');
    await fails('/v1/locations/resolve?country=US&foo=1', 400, 'BAD_REQUEST', 'foo');
    await fails('/v1/locations/resolve?country=US&country=DE', 400, 'BAD_REQUEST', 'country');
    await fails('/v1/locations/resolve?country=AU&city=%20', 400, 'BAD_REQUEST', 'city');
    await fails('/v1/locations/resolve?subdivision_code=', 400, 'BAD_REQUEST', 'subdivision_code');
  });
});

describe('GET /v1/locations/search (LEGACY)', () => {
  it('finds by name, case- and accent-insensitively, with the catalog fields', async () => {
    const body = await ok('/v1/locations/search?q=CALIFÓRNIA');
    expect(body.data.registry_version).toBe('v1');
    expect(body.data.source_file_date).toBe('2025-07-15');
    expect(body.data).not.toHaveProperty('catalog');
    expect(body.data.locations[0]).toEqual(CALIFORNIA);
    expect(names(body)).toEqual(['California', 'Baja California', 'Baja California Sur']);
    expect(names(await ok('/v1/locations/search?q=s%C3%A3o%20paulo'))).toEqual(['State of Sao Paulo']);
  });

  it('matches aliases: ISO, CLDR and short codes, and country codes, ranked first', async () => {
    expect(names(await ok('/v1/locations/search?q=US-CA'))).toEqual(['California']);
    expect(names(await ok('/v1/locations/search?q=usca'))).toEqual(['California']);
    // The short code first, then names starting with "ca", then words starting with it.
    expect(names(await ok('/v1/locations/search?q=CA&country=US'))).toEqual(['California', 'North Carolina', 'South Carolina']);
    expect(names(await ok('/v1/locations/search?q=2840'))).toEqual(['United States']);
    // Trimmed as names are: space around an id still finds it, first (through the index and under a parent alike).
    expect(names(await ok('/v1/locations/search?q=%202840%20'))[0]).toBe('United States');
    expect(names(await ok('/v1/locations/search?parent_location_id=2840&q=21137%20'))).toEqual(['California']);
    const ca = names(await ok('/v1/locations/search?q=ca&limit=3'));
    expect(ca).toEqual(['Canada', 'California', 'Cabo Verde']);
  });

  it('matches the country code of every entry, as FULL does, after the entries whose names hold it', async () => {
    const ae = (await ok('/v1/locations/search?q=AE&limit=50')).data.locations as { location_id: string; name: string; country_code: string }[];
    expect(ae[0]!.location_id).toBe('2784');
    // The registry's cities of the United Arab Emirates come last, in browse order (by name).
    expect(ae.slice(-5).map((location) => location.location_id)).toEqual(['1000010', '1000011', '1000012', '1000013', '1000014']);
    expect(ae.slice(1, -5).every((location) => /ae/i.test(location.name) || location.country_code !== 'AE')).toBe(true);
    // Narrowed to the country: its own entries only (its country entry by the alias, then the rest).
    expect((await ok('/v1/locations/search?q=AE&country=AE')).data.locations.map((location: { location_id: string }) => location.location_id)).toEqual(['2784', '1000010', '1000011', '1000012', '1000013', '1000014']);
  });

  it('ranks exact, name prefix, word prefix, substring; ties by level then name', async () => {
    // Name matches first; then the entries matched by their canonical name only (New South Wales' cities).
    const wales = (await ok('/v1/locations/search?q=wales')).data.locations as { name: string; canonical_name: string; level: string }[];
    expect(wales.slice(0, 2).map((location) => location.name)).toEqual(['Wales', 'New South Wales']);
    expect(wales.length).toBeGreaterThan(2);
    expect(wales.slice(2).every((location) => location.level === 'CITY' && !/wales/i.test(location.name) && location.canonical_name.includes(',New South Wales,'))).toBe(true);
    expect(names(await ok('/v1/locations/search?q=south&limit=6'))).toEqual([
      'South Africa', 'South Georgia and the South Sandwich Islands', 'South Korea', 'South Sudan', 'South Australia', 'South Bohemian Region',
    ]);
    expect(names(await ok('/v1/locations/search?q=new&country=US'))).toEqual(['New Hampshire', 'New Jersey', 'New Mexico', 'New York']);
    expect(names(await ok('/v1/locations/search?q=ales&levels=REGION'))).toEqual(['New South Wales', 'Wales']);
  });

  it('browses countries without q, and the country → region → city cascade', async () => {
    const countries = await ok('/v1/locations/search?levels=COUNTRY');
    expect(countries.data.locations).toHaveLength(20);
    expect(names(countries).slice(0, 3)).toEqual(['Afghanistan', 'Albania', 'Algeria']);
    expect(countries.extra).toEqual({ pagination: { limit: 20, returned: 20, has_more: true } });
    // Without any parameter: the same countries.
    expect(await ok('/v1/locations/search')).toEqual(countries);
    // A bare country: its entry, then its regions, then its cities.
    const australia = await ok('/v1/locations/search?country=AU&limit=12');
    expect(names(australia)).toEqual([
      'Australia', 'Australian Capital Territory', 'New South Wales', 'Northern Territory', 'Queensland', 'South Australia', 'Tasmania',
      'Victoria', 'Western Australia', ...names(await ok('/v1/locations/search?country=AU&levels=CITY&limit=3')),
    ]);
    const states = await ok('/v1/locations/search?parent_location_id=2840&limit=50');
    expect(states.data.locations).toHaveLength(50);
    expect(states.extra.pagination.has_more).toBe(true);
    expect(states.data.locations.every((location: { level: string; parent_location_id: string }) => location.level === 'REGION' && location.parent_location_id === '2840')).toBe(true);
    expect(names(await ok('/v1/locations/search?parent_location_id=2036&limit=3'))).toEqual(['Australian Capital Territory', 'New South Wales', 'Northern Territory']);
    expect(names(await ok('/v1/locations/search?parent_location_id=20035&q=syd'))).toEqual(['Sydney']);
    // Direct children only, levels or not (the reference's direct-child browsing): a country's
    // cities are its regions' children, reached a step at a time.
    const auCities = await ok('/v1/locations/search?parent_location_id=2036&levels=CITY&q=sydney');
    expect(auCities.data.locations).toEqual([]);
    expect(auCities.extra).not.toHaveProperty('expansion');
    const auRegions = await ok('/v1/locations/search?parent_location_id=2036&levels=REGION,CITY&limit=50');
    expect(auRegions.data.locations.length).toBeGreaterThan(0);
    expect(auRegions.data.locations.every((location: { level: string; parent_location_id: string }) => location.level === 'REGION' && location.parent_location_id === '2036')).toBe(true);
    expect(names(await ok('/v1/locations/search?parent_location_id=20035&levels=CITY&q=syd'))).toEqual(['Sydney']);
    expect((await ok('/v1/locations/search?parent_location_id=2036&q=sydney')).extra).not.toHaveProperty('expansion');
    expect(names(await ok('/v1/locations/search?parent_location_id=2660'))).toEqual(['The Valley']);
  });

  it('says has_more false when the matches fill the page exactly: it is the last page', async () => {
    const all = await ok('/v1/locations/search?parent_location_id=2036&limit=50');
    const count = all.data.locations.length as number;
    expect(count).toBeGreaterThan(1);
    expect(all.extra.pagination).toEqual({ limit: 50, returned: count, has_more: false });
    const exact = await ok(`/v1/locations/search?parent_location_id=2036&limit=${count}`);
    expect(names(exact)).toEqual(names(all));
    expect(exact.extra.pagination).toEqual({ limit: count, returned: count, has_more: false });
    expect((await ok(`/v1/locations/search?parent_location_id=2036&limit=${count - 1}`)).extra.pagination).toEqual({ limit: count - 1, returned: count - 1, has_more: true });
    // Ranked by a query too: four matches, four a page.
    expect((await ok('/v1/locations/search?q=new&country=US&limit=4')).extra.pagination).toEqual({ limit: 4, returned: 4, has_more: false });
    expect((await ok('/v1/locations/search?q=new&country=US&limit=3')).extra.pagination).toEqual({ limit: 3, returned: 3, has_more: true });
    // And by a query among a parent's children: New South Wales and South Australia.
    expect((await ok('/v1/locations/search?q=south&parent_location_id=2036&limit=2')).extra.pagination).toEqual({ limit: 2, returned: 2, has_more: false });
    expect((await ok('/v1/locations/search?q=south&parent_location_id=2036&limit=1')).extra.pagination).toEqual({ limit: 1, returned: 1, has_more: true });
  });

  it('filters by subdivision code and country', async () => {
    const california = await ok('/v1/locations/search?subdivision_code=US-CA');
    expect(names(california)).toEqual(['California']);
    // The scope a code names is the region and its cities: said in extra.expansion.
    expect(california.extra).toEqual({
      pagination: { limit: 20, returned: 1, has_more: false }, subdivision_code_type: 'ISO_3166_2', expansion: { location_id: '21137', includes: 'SELF_AND_CHILDREN' },
    });
    const newSouthWales = await ok('/v1/locations/search?subdivision_code=NSW&country=AU');
    expect(names(newSouthWales).slice(0, 2)).toEqual(['New South Wales', 'Albury']);
    expect(newSouthWales.extra.expansion).toEqual({ location_id: '20035', includes: 'SELF_AND_CHILDREN' });
    expect(names(await ok('/v1/locations/search?subdivision_code=NSW&country=AU&levels=CITY&q=syd'))).toEqual(['Sydney']);
    // A former code finds its region, and says so.
    const formerCode = await ok('/v1/locations/search?subdivision_code=IN-CT');
    expect(names(formerCode)[0]).toBe('Chhattisgarh');
    expect(formerCode.extra.warnings).toEqual(['subdivision_code IN-CT is a former code of Chhattisgarh, now IN-CG (Chhattisgarh: ISO replaced CT with CG); Chhattisgarh is answered']);
    expect(names(await ok('/v1/locations/search?q=georgia&country=US'))).toEqual(['Georgia']);
  });

  it('accepts locale as reserved and says so', async () => {
    const body = await ok('/v1/locations/search?q=ontario&locale=fr');
    expect(names(body)).toEqual(['Ontario']);
    expect(body.extra.warnings).toEqual(['locale is reserved for future localized names; results use registry names']);
    // Resolve and lookup treat it the same way.
    expect((await ok('/v1/locations/resolve?country=AU&locale=fr')).extra).toEqual({ warnings: ['locale is reserved for future localized names; results use registry names'] });
    expect((await ok('/v1/locations/2840?locale=fr')).extra).toEqual({ warnings: ['locale is reserved for future localized names; results use registry names'] });
  });

  it('answers 400 naming the parameter for FULL-only, unknown, repeated or malformed parameters', async () => {
    await fails('/v1/locations/search?q=cal&country=us', 400, 'BAD_REQUEST', 'country');
    await fails('/v1/locations/search?q=a&target_types=City', 400, 'BAD_REQUEST', 'target_types');
    await fails('/v1/locations/search?q=a&cursor=abc', 400, 'BAD_REQUEST', 'cursor');
    await fails('/v1/locations/search?q=a&bogus=1', 400, 'BAD_REQUEST', 'bogus');
    await fails('/v1/locations/search?q=a&q=b', 400, 'BAD_REQUEST', 'q');
    await fails('/v1/locations/search?q=a&locale=en&locale=fr', 400, 'BAD_REQUEST', 'locale');
    await fails('/v1/locations/search?levels=STATE', 400, 'BAD_REQUEST', 'levels');
    await fails('/v1/locations/search?levels=COUNTRY,', 400, 'BAD_REQUEST', 'levels');
    await fails('/v1/locations/search?q=a&limit=0', 400, 'BAD_REQUEST', 'limit');
    await fails('/v1/locations/search?q=a&limit=51', 400, 'BAD_REQUEST', 'limit');
    await fails('/v1/locations/search?q=a&limit=1.5', 400, 'BAD_REQUEST', 'limit');
    await fails('/v1/locations/search?q=---', 400, 'BAD_REQUEST', 'q');
    await fails('/v1/locations/search?parent_location_id=abc', 400, 'BAD_REQUEST', 'parent_location_id');
    await fails('/v1/locations/search?q=a&country=U1', 400, 'BAD_REQUEST', 'country');
    await fails('/v1/locations/search?subdivision_code=CA', 400, 'BAD_REQUEST', 'country');
    await fails('/v1/locations/search?subdivision_code=US-CA&subdivision_code_type=CLDR', 400, 'BAD_REQUEST', 'subdivision_code');
  });

  it('answers 404 for parents, countries and codes the registry does not have', async () => {
    await fails('/v1/locations/search?parent_location_id=9061180', 404, 'NOT_FOUND', '9061180');
    // country narrows search's results, as in FULL: one the registry lacks narrows them to none.
    for (const query of ['q=a&country=ZZ', 'country=ZZ', 'country=ZZ&levels=CITY']) {
      const narrowed = await ok(`/v1/locations/search?${query}`);
      expect(narrowed.data.locations, query).toEqual([]);
      expect(narrowed.extra.pagination, query).toEqual({ limit: 20, returned: 0, has_more: false });
    }
    await fails('/v1/locations/search?subdivision_code=US-ZZ', 404, 'NOT_FOUND', 'US-ZZ');
  });

  it('keeps limit bounds: 1 and 50 are accepted, 20 is the default', async () => {
    expect((await ok('/v1/locations/search?levels=REGION&limit=1')).data.locations).toHaveLength(1);
    expect((await ok('/v1/locations/search?levels=REGION&limit=50')).data.locations).toHaveLength(50);
    expect((await ok('/v1/locations/search?levels=REGION')).data.locations).toHaveLength(20);
  });
});

describe('LEGACY response bytes', () => {
  it('are the envelope exactly as JSON.stringify writes it, members in the reference order', async () => {
    const cases: [string, string[], string[]][] = [
      ['/v1/locations/21137', ['registry_version', 'source_file_date', 'location', 'path', 'location_ids'], []],
      ['/v1/locations/resolve?subdivision_code=AU-NSW&city=SYDNEY', ['registry_version', 'source_file_date', 'location', 'path', 'location_ids', 'candidates'], ['subdivision_code_type', 'pagination']],
      ['/v1/locations/search?q=cal&locale=fr', ['registry_version', 'source_file_date', 'locations'], ['pagination', 'warnings']],
    ];
    for (const [url, data, extra] of cases) {
      const response = await testApp.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = response.json();
      expect(response.body).toBe(JSON.stringify(body));
      expect(Object.keys(body)).toEqual(['code', 'message', 'data', 'extra']);
      expect(Object.keys(body.data), url).toEqual(data);
      expect(Object.keys(body.extra), url).toEqual(extra);
    }
  });
});
