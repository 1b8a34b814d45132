import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../platform/http/errors.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { buildLegacyRegistry } from '../../reference/locations/legacy/build.js';
import * as legacy from '../../services/api/routes/locations/legacy.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const snapshot = async () =>
  (await database.db.query('SELECT * FROM legacy_registry_locations ORDER BY location_id')).rows;

describe('building the LEGACY registry from the FULL release', () => {
  it('is unavailable (503) before any release is loaded', async () => {
    await expect(buildLegacyRegistry(database.db, '2025-07-15')).rejects.toThrow(/no FULL catalog release is loaded/);
    const error = await legacy.lookup({ db: database.db }, '2840', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ statusCode: 503, code: 'CATALOG_NOT_LOADED' });
  });

  it('is built by the FULL loader, with counts recorded beside the source file date', async () => {
    await loadFullCatalog(database.db, { file: GEO_EXCERPT_FILE });
    const { rows } = await database.db.query(
      'SELECT registry_version, source_file_date, countries, regions, cities, regions_with_codes, code_sources FROM legacy_registry_build',
    );
    expect(rows).toEqual([{
      registry_version: 'v1', source_file_date: '2025-07-15', countries: 245, regions: 1078, cities: 456, regions_with_codes: 1057,
      code_sources: 'cldr-core@48.2.0 cldr-subdivisions-full@48.2.0 iso-3166@4.4.0',
    }]);
    const { rows: levels } = await database.db.query<{ level: string; n: string }>(
      'SELECT level, count(*) AS n FROM legacy_registry_locations GROUP BY level ORDER BY level',
    );
    expect(levels).toEqual([{ level: 'CITY', n: '456' }, { level: 'COUNTRY', n: '245' }, { level: 'REGION', n: '1078' }]);
  });

  it('is idempotent: the same release gives no work, and a forced rebuild gives the same rows', async () => {
    const before = await snapshot();
    expect((await buildLegacyRegistry(database.db, '2025-07-15')).status).toBe('up-to-date');
    expect((await loadFullCatalog(database.db, { file: GEO_EXCERPT_FILE })).status).toBe('already-loaded');
    const forced = await buildLegacyRegistry(database.db, '2025-07-15', { force: true });
    expect(forced).toMatchObject({ status: 'built', countries: 245, regions: 1078, cities: 456, regionsWithCodes: 1057 });
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a date that is not the current release', async () => {
    await expect(buildLegacyRegistry(database.db, '2026-08-12')).rejects.toThrow(/current FULL release is 2025-07-15/);
  });
});
