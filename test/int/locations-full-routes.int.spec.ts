import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { createTestApp } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

// In-process rate limits: these tests send thousands of requests and must not move the shared
// Redis counters another test file (the rate-limit test) reads.
let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp({ env: { REDIS_URL: '', LOCATION_RATE_LIMIT: '1000000' } });
});
afterAll(async () => {
  await t.close();
});

interface Body {
  code: string;
  message: string;
  data: Record<string, any>;
  extra: Record<string, any>;
}
async function get(url: string): Promise<{ status: number; body: Body }> {
  const response = await t.app.inject({ method: 'GET', url });
  return { status: response.statusCode, body: response.json() as Body };
}
const ids = (body: Body) => (body.data.locations as { location_id: string }[]).map((location) => location.location_id);
const search = (query: string) => get(`/v1/locations/search?catalog=FULL&${query}`);

async function expectBadRequest(url: string, message: RegExp | string) {
  const { status, body } = await get(url);
  expect(status).toBe(400);
  expect(body).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(message), data: {}, extra: {} });
}

describe('before a catalog is loaded', () => {
  it('answers 503 CATALOG_NOT_LOADED saying how to load one', async () => {
    for (const url of ['/v1/locations/search?catalog=FULL&q=cal', '/v1/locations/resolve?catalog=FULL&location_id=2840', '/v1/locations/2840?catalog=FULL']) {
      const { status, body } = await get(url);
      expect(status).toBe(503);
      expect(body.code).toBe('CATALOG_NOT_LOADED');
      expect(body.message).toMatch(/`npm run geo:load -- <file>`.*GEO_CATALOG_FILE=<file>.*`npm run geo:download`/);
      expect(body.data).toEqual({});
    }
  });

  it('still rejects bad input with 400 first', async () => {
    await expectBadRequest('/v1/locations/search?catalog=FULL', /q is required/);
  });
});

describe('with the real excerpt loaded', () => {
  beforeAll(async () => {
    await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
  });

  const unitedStates = {
    location_id: '2840', name: 'United States', canonical_name: 'United States', country_code: 'US', target_type: 'Country',
    hierarchy_precision: 1, legacy_level: 'COUNTRY',
  };
  const arizona = {
    location_id: '21136', name: 'Arizona', canonical_name: 'Arizona,United States', country_code: 'US', target_type: 'State',
    hierarchy_precision: 2, legacy_level: 'REGION',
  };

  describe('lookup', () => {
    it('returns a country with catalog-level fields', async () => {
      const { status, body } = await get('/v1/locations/2840?catalog=FULL');
      expect(status).toBe(200);
      expect(body).toEqual({
        code: 'SUCCESS',
        message: '',
        data: {
          catalog: 'FULL', catalog_version: 'v1', source_file_date: '2025-07-15',
          location: {
            ...unitedStates, source_parent_location_id: null, parent_location_id: null, path: [unitedStates], chain_status: 'COMPLETE',
          },
          path: [unitedStates],
          location_ids: ['2840'],
        },
        extra: {},
      });
    });

    it('returns an unresolved chain without inventing the missing parent', async () => {
      const { body } = await get('/v1/locations/1000002?catalog=FULL');
      const kabul = { location_id: '1000002', name: 'Kabul', canonical_name: 'Kabul,Kabul,Afghanistan', country_code: 'AF', target_type: 'City', hierarchy_precision: 1, legacy_level: 'CITY' };
      expect(body.data.location).toEqual({
        ...kabul, source_parent_location_id: '9075393', parent_location_id: null, path: [kabul],
        chain_status: 'UNRESOLVED_SOURCE_PARENT', unresolved_source_parent_location_id: '9075393',
      });
      expect(body.data.location_ids).toEqual(['1000002']);
    });

    it('labels legacy_level from the LEGACY registry, only where the location is a registry entry', async () => {
      const level = async (id: string) => ((await get(`/v1/locations/${id}?catalog=FULL`)).body.data.location as { legacy_level?: string }).legacy_level;
      expect(await level('2630')).toBe('COUNTRY'); // Puerto Rico: raw type Region, a LEGACY country
      expect(await level('21137')).toBe('REGION');
      expect(await level('1000004')).toBe('CITY');
      expect(await level('9030359')).toBeUndefined(); // postal code
      expect(await level('20267')).toBeUndefined(); // Alicante: a province below an autonomous community
      expect((await get('/v1/locations/2630?catalog=FULL')).body.data.location.target_type).toBe('Region');
    });

    it('400 for a non-numeric id, 404 for an unknown one, 400 for unknown or LEGACY parameters', async () => {
      await expectBadRequest('/v1/locations/abc?catalog=FULL', 'location_id must be a numeric location id, got "abc"');
      for (const id of ['1', '99999999', '123456789012345678901234567890']) {
        const { status, body } = await get(`/v1/locations/${id}?catalog=FULL`);
        expect(status).toBe(404);
        expect(body).toEqual({ code: 'NOT_FOUND', message: `location ${id} is not an active location of the FULL catalog`, data: {}, extra: {} });
      }
      await expectBadRequest('/v1/locations/2840?catalog=FULL&foo=1', /^unknown parameter foo/);
      await expectBadRequest('/v1/locations/2840?catalog=FULL&catalog=FULL', /catalog/);
      // Names of every JavaScript object's members are unknown parameters like any other.
      for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
        await expectBadRequest(`/v1/locations/search?catalog=FULL&q=a&${name}=x`, new RegExp(`^unknown parameter ${name}; allowed: `));
      }
    });
  });

  describe('resolve', () => {
    it('returns the location, its path, location_ids and no candidates', async () => {
      const postalCode = { location_id: '9030359', name: '86432', canonical_name: '86432,Arizona,United States', country_code: 'US', target_type: 'Postal Code', hierarchy_precision: 3 };
      const { status, body } = await get('/v1/locations/resolve?catalog=FULL&location_id=9030359');
      expect(status).toBe(200);
      const path = [unitedStates, arizona, postalCode];
      expect(body.data).toEqual({
        catalog: 'FULL', catalog_version: 'v1', source_file_date: '2025-07-15',
        location: { ...postalCode, source_parent_location_id: '21136', parent_location_id: '21136', path, chain_status: 'COMPLETE' },
        path,
        location_ids: ['9030359', '21136', '2840'],
        candidates: [],
      });
    });

    it('requires an active FULL id', async () => {
      await expectBadRequest('/v1/locations/resolve?catalog=FULL', 'location_id is required');
      await expectBadRequest('/v1/locations/resolve?catalog=FULL&location_id=x1', 'location_id must be a numeric location id, got "x1"');
      await expectBadRequest('/v1/locations/resolve?catalog=FULL&location_id=2840&location_id=2250', 'location_id is given more than once; give it once');
      const { status, body } = await get('/v1/locations/resolve?catalog=FULL&location_id=4242');
      expect(status).toBe(404);
      expect(body.code).toBe('NOT_FOUND');
    });

    it.each(['country=US', 'subdivision_code=US-CA', 'subdivision_code_type=AUTO', 'city=Phoenix', 'limit=5'])('rejects the LEGACY-only %s', async (parameter) => {
      const name = parameter.split('=')[0]!;
      await expectBadRequest(`/v1/locations/resolve?catalog=FULL&location_id=2840&${parameter}`, `${name}: is a LEGACY-only parameter; the FULL catalog does not accept it`);
    });

    it('rejects unknown parameters, naming them', async () => {
      await expectBadRequest('/v1/locations/resolve?catalog=FULL&location_id=2840&zoom=1&x=2', /^unknown parameters zoom, x; allowed: catalog, location_id, locale$/);
    });
  });

  describe('search ranking', () => {
    it('puts names that start with q first, broad types before narrow, then word prefixes', async () => {
      const { status, body } = await search('q=cal&limit=10');
      expect(status).toBe(200);
      expect(ids(body)).toEqual([
        '9061340', // Calabarzon (Region)
        '20201', // Caldas (Region)
        '21137', // California (State)
        '20800', // Callao Region (Region)
        '20898', // Calarasi County (County)
        '1000134', // Caleta Olivia (City)
        '1000348', // Caloundra (City)
        '2540', // New Caledonia (Country): word prefix
        '20696', // Baja California (State)
        '20697', // Baja California Sur (State)
      ]);
      expect(body.data).toMatchObject({ catalog: 'FULL', catalog_version: 'v1', source_file_date: '2025-07-15' });
      expect(body.extra).toEqual({ pagination: { limit: 10, returned: 10, has_more: true } });
    });

    it('puts an exact id or the country of a country code first', async () => {
      expect(ids((await search('q=2840')).body)).toEqual(['2840']);
      // Only as written: a leading zero makes it text, which no name holds (the location route says 404 for 02840 too).
      expect(ids((await search('q=02840')).body)).toEqual([]);
      expect(ids((await search('q=us&limit=5')).body)).toEqual(['2840', '21376', '21503', '1000122', '2036']);
    });

    it('is case- and accent-insensitive', async () => {
      for (const q of ['sao', 'S%C3%A3o', 'SAO']) expect(ids((await search(`q=${q}`)).body)).toEqual(['2678', '20106', '21031']);
      expect(ids((await search('q=fenway%20kenmore')).body)).toEqual(['9061331']);
    });

    it('folds letters decomposition leaves alone as LEGACY does: "Łódź" finds "Lodz Voivodeship"', async () => {
      for (const q of ['lodz', encodeURIComponent('Łódź'), encodeURIComponent('ŁÓDŹ')]) expect(ids((await search(`q=${q}`)).body)).toEqual(['20850']);
    });

    it('finds a city-state and a city whose parent is missing', async () => {
      expect(ids((await search('q=singapore')).body)).toEqual(['2702']);
      expect(ids((await search('q=kabul')).body)).toEqual(['1000002']);
    });

    it('narrows by country and by exact raw target types', async () => {
      const { body } = await search('q=cal&country=US&limit=3');
      expect(ids(body)).toEqual(['21137', '9061213', '9061240']); // California, then its neighborhoods by canonical name
      expect(ids((await search('q=new&target_types=State,Province')).body)).toEqual(['20116', '21163', '21164', '21165', '20035', '21167', '20117']);
      // In any letter case, as the reference's examples write them (`postal code`, `city`); still the raw types only.
      expect(ids((await search('q=new&target_types=state,PROVINCE')).body)).toEqual(['20116', '21163', '21164', '21165', '20035', '21167', '20117']);
      expect(ids((await search('q=new&target_types=region')).body)).not.toContain('20116');
      expect(ids((await search('q=new&target_types=sta')).body)).toEqual([]);
      // country narrows the results (it is not an id): one no active location has narrows them to none.
      const unknown = await search('q=cal&country=ZZ');
      expect(unknown.status).toBe(200);
      expect(ids(unknown.body)).toEqual([]);
    });

    it('folds compatibility forms of q as LEGACY does (full-width letters)', async () => {
      expect(ids((await search('q=%EF%BC%A2%EF%BC%A1%EF%BC%B6%EF%BC%A1%EF%BC%B2%EF%BC%A9%EF%BC%A1')).body)).toEqual(ids((await search('q=bavaria')).body));
      expect(ids((await search('q=bavaria')).body)).toContain('20229');
    });

    it('browses the exact verified children of a parent', async () => {
      const { rows } = await t.runtime.db.query<{ location_id: string }>(
        "SELECT location_id FROM geo_full_locations WHERE parent_location_id = 2840 AND target_type = 'State'",
      );
      const pages: string[][] = [];
      let cursor = '';
      do {
        const { status, body } = await search(`parent_location_id=2840&target_types=State&limit=7${cursor}`);
        expect(status).toBe(200);
        pages.push(ids(body));
        cursor = body.data.next_cursor === undefined ? '' : `&cursor=${encodeURIComponent(body.data.next_cursor)}`;
      } while (cursor !== '');
      expect(pages.flat().sort()).toEqual(rows.map((row) => row.location_id).sort());
      expect(pages.flat()[0]).toBe('21133'); // Alabama
      expect(pages.at(-1)!.length).toBeLessThanOrEqual(7);
      // Kabul's raw parent is not in the file: not an id of the catalog, so nothing to browse under.
      const missing = await search('parent_location_id=9075393');
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'parent_location_id 9075393 is not an active location of the FULL catalog', data: {}, extra: {} });
    });

    it('accepts locale and says it is reserved', async () => {
      const { status, body } = await search('q=singapore&locale=fr');
      expect(status).toBe(200);
      expect(body.extra.warnings).toEqual(['locale is reserved for future localized names; results use registry names']);
    });
  });

  describe('search paging', () => {
    it('pages to the end without duplicates or gaps, the last page without next_cursor', async () => {
      const { rows } = await t.runtime.db.query<{ n: string }>("SELECT count(*) AS n FROM geo_full_locations WHERE text_norm LIKE '%an%'");
      const seen: string[] = [];
      let cursor = '';
      let pages = 0;
      for (;;) {
        const { status, body } = await search(`q=an&limit=50${cursor}`);
        expect(status).toBe(200);
        pages++;
        seen.push(...ids(body));
        if (body.data.next_cursor === undefined) {
          expect(body.extra.pagination.has_more).toBe(false);
          break;
        }
        expect(ids(body)).toHaveLength(50);
        cursor = `&cursor=${encodeURIComponent(body.data.next_cursor)}`;
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBe(Number(rows[0]!.n));
      expect(pages).toBe(Math.ceil(seen.length / 50));
    });

    it('gives no next_cursor when the matches fill the page exactly: it is the last page', async () => {
      const query = 'parent_location_id=2036&target_types=State';
      const all = (await search(`${query}&limit=50`)).body;
      expect(all.data).not.toHaveProperty('next_cursor');
      const count = ids(all).length;
      expect(count).toBeGreaterThan(1);
      const { status, body } = await search(`${query}&limit=${count}`);
      expect(status).toBe(200);
      expect(ids(body)).toEqual(ids(all));
      expect(body.data).not.toHaveProperty('next_cursor');
      expect(body.extra.pagination).toEqual({ limit: count, returned: count, has_more: false });
    });

    it('binds a cursor to its constraints and rejects a tampered one', async () => {
      const first = (await search('q=cal&limit=5')).body.data.next_cursor as string;
      const next = await search(`q=cal&limit=5&cursor=${encodeURIComponent(first)}`);
      expect(ids(next.body)).toEqual(['1000134', '1000348', '2540', '20696', '20697']);
      // Page size is not a constraint; the same position continues.
      expect(ids((await search(`q=CAL&limit=2&cursor=${encodeURIComponent(first)}`)).body)).toEqual(['1000134', '1000348']);
      for (const other of ['q=cali', 'q=cal&country=US', 'q=cal&target_types=City', 'q=cal&parent_location_id=2840']) {
        await expectBadRequest(`/v1/locations/search?catalog=FULL&${other}&cursor=${encodeURIComponent(first)}`, /cursor was issued for other search constraints/);
      }
      const [payload, signature] = first.split('.');
      const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), name: 'a' })).toString('base64url');
      // An empty cursor is a lost one, not a first page: restarting silently would repeat every result.
      await expectBadRequest('/v1/locations/search?catalog=FULL&q=cal&cursor=', 'cursor must not be empty; leave it out for the first page');
      await expectBadRequest('/v1/locations/search?catalog=FULL&q=&parent_location_id=2840', 'q must not be empty');
      for (const bad of [`${forged}.${signature}`, 'abc', `${payload}.`, `${first}x`]) {
        await expectBadRequest(`/v1/locations/search?catalog=FULL&q=cal&cursor=${encodeURIComponent(bad)}`, 'cursor is not valid; use data.next_cursor exactly as returned');
      }
    });
  });

  describe('response bytes', () => {
    it('are the envelope exactly as JSON.stringify writes it, members in the reference order', async () => {
      const cases: [string, string[], string[]][] = [
        ['/v1/locations/2840?catalog=FULL', ['catalog', 'catalog_version', 'source_file_date', 'location', 'path', 'location_ids'], []],
        ['/v1/locations/9030359?catalog=FULL&locale=fr', ['catalog', 'catalog_version', 'source_file_date', 'location', 'path', 'location_ids'], ['warnings']],
        ['/v1/locations/resolve?catalog=FULL&location_id=1000002', ['catalog', 'catalog_version', 'source_file_date', 'location', 'path', 'location_ids', 'candidates'], []],
        ['/v1/locations/search?catalog=FULL&q=cal&limit=3', ['catalog', 'catalog_version', 'source_file_date', 'locations', 'next_cursor'], ['pagination']],
        ['/v1/locations/search?catalog=FULL&q=singapore&locale=fr', ['catalog', 'catalog_version', 'source_file_date', 'locations'], ['warnings', 'pagination']],
      ];
      for (const [url, data, extra] of cases) {
        const response = await t.app.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(200);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        const body = response.json() as Body;
        expect(response.body).toBe(JSON.stringify(body));
        expect(Object.keys(body)).toEqual(['code', 'message', 'data', 'extra']);
        expect(Object.keys(body.data), url).toEqual(data);
        expect(Object.keys(body.extra), url).toEqual(extra);
        const location = body.data.location ?? body.data.locations[0];
        expect(Object.keys(location).slice(0, 8), url).toEqual(['location_id', 'name', 'canonical_name', 'country_code', 'target_type', 'source_parent_location_id', 'parent_location_id', 'path']);
      }
    });
  });

  describe('search input rules', () => {
    it.each([
      ['subdivision_code=US-CA', 'subdivision_code: is a LEGACY-only parameter'],
      ['subdivision_code_type=ISO_3166_2', 'subdivision_code_type: is a LEGACY-only parameter'],
      ['levels=COUNTRY', 'levels: is a LEGACY-only parameter'],
      ['bogus=1', 'unknown parameter bogus; allowed: catalog, q, parent_location_id, country, target_types, limit, cursor, locale'],
      // A name that would not show in the message is quoted.
      ['q=cal&=1', 'unknown parameter ""; allowed: catalog, q, parent_location_id, country, target_types, limit, cursor, locale'],
      ['q=cal&a%20b=1', 'unknown parameter "a b"; allowed: catalog, q, parent_location_id, country, target_types, limit, cursor, locale'],
      ['q=a&q=b', 'q is given more than once; give it once'],
      ['q=cal&catalog=FULL', 'catalog is given more than once; give it once'],
      ['q=cal&limit=5&limit=6', 'limit is given more than once'],
      ['', 'q is required in FULL search unless parent_location_id is given'],
      ['q=', 'q must not be empty'],
      ['q=%21%21', 'q must contain a letter or a digit'],
      ['q=cal&country=us', 'country must be an ISO 3166-1 alpha-2 code in upper case, got "us"'],
      ['q=cal&country=USA', 'country must be an ISO 3166-1 alpha-2 code in upper case, got "USA"'],
      ['q=cal&limit=0', 'limit must be an integer from 1 to 50, got "0"'],
      ['q=cal&limit=51', 'limit must be an integer from 1 to 50, got "51"'],
      ['q=cal&limit=2.5', 'limit must be an integer from 1 to 50, got "2.5"'],
      ['q=cal&limit=ten', 'limit must be an integer from 1 to 50, got "ten"'],
      ['q=cal&limit=', 'limit must be an integer from 1 to 50, got ""'],
      ['parent_location_id=x', 'parent_location_id must be a numeric location id, got "x"'],
      ['q=cal&target_types=City,,State', 'target_types must be a comma-separated list without empty items'],
    ])('rejects %s', async (query, message) => {
      await expectBadRequest(`/v1/locations/search?catalog=FULL&${query}`, new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    });

    it('rejects an unknown catalog', async () => {
      await expectBadRequest('/v1/locations/search?catalog=full&q=cal', 'catalog must be LEGACY or FULL, got "full"');
    });
  });
});
