import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { createTestApp } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Search pages are cached per index build: a new release must answer from its own data, never
 * from a page the previous release rendered for the same search.
 */
let t: Awaited<ReturnType<typeof createTestApp>>;
let scratch: string;
beforeAll(async () => {
  t = await createTestApp({ env: { REDIS_URL: '', LOCATION_RATE_LIMIT: '1000000' } });
  scratch = mkdtempSync(join(tmpdir(), 'page-cache-'));
});
afterAll(async () => {
  await t.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface Body {
  code: string;
  data: { source_file_date: string; locations: { location_id: string; name: string }[] };
}
async function get(url: string): Promise<Body> {
  const response = await t.app.inject({ method: 'GET', url });
  expect(response.statusCode).toBe(200);
  return response.json() as Body;
}

/** The excerpt as a release of `date`, with Arizona (21136) named `arizona`. */
function release(date: string, arizona: string): string {
  const file = join(scratch, `geotargets-${date}-excerpt.csv`);
  const text = readFileSync(GEO_EXCERPT_FILE, 'utf8').replace('"21136","Arizona",', `"21136","${arizona}",`);
  writeFileSync(file, text);
  return file;
}

const arizonaIn = (body: Body) => body.data.locations.find((location) => location.location_id === '21136')?.name;

describe('search pages across releases', () => {
  it('answers each release from its own data, in both catalogs', async () => {
    await loadFullCatalog(t.runtime.db, { file: release('2026-01-01', 'Arizona') });
    const searches = ['/v1/locations/search?catalog=FULL&q=arizona&country=US', '/v1/locations/search?q=arizona&country=US'];
    for (const url of searches) {
      // A page is kept once its search is asked for again: the third answer comes from the cache.
      const first = await get(url);
      expect(first.data.source_file_date).toBe('2026-01-01');
      expect(arizonaIn(first)).toBe('Arizona');
      expect(await get(url)).toEqual(first);
      expect(await get(url)).toEqual(first);
    }

    await loadFullCatalog(t.runtime.db, { file: release('2026-02-01', 'Arizona Nova') });
    // Lookups are not page-cached: once they show the new release, both indexes have switched.
    await waitFor(async () => (await get('/v1/locations/21136?catalog=FULL')).data.source_file_date === '2026-02-01', { what: 'FULL index switch' });
    await waitFor(async () => (await get('/v1/locations/21136')).data.source_file_date === '2026-02-01', { what: 'LEGACY registry switch' });
    for (const url of searches) {
      const body = await get(url);
      expect(body.data.source_file_date).toBe('2026-02-01');
      expect(arizonaIn(body)).toBe('Arizona Nova');
    }
  });
});
