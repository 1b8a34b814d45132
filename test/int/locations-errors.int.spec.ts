import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { prepareReferenceData } from '../../services/api/reference-data.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { rawHttp } from '../support/raw-http.js';

/**
 * What both catalogs answer alike: 503 CATALOG_NOT_LOADED before a release is loaded, and 404
 * for any digit string that is not one of their ids, however long.
 */
// In-process rate limits with a ceiling no test reaches: the shared Redis counters stay untouched.
let t: TestRuntime & { app: FastifyInstance };
beforeAll(async () => {
  t = await createTestApp({ env: { REDIS_URL: '', LOCATION_RATE_LIMIT: '1000000' } });
});
afterAll(async () => t?.close());

const LOAD_FORM = 'npm run geo:load -- <file>';

describe('on a fresh database, with nothing loaded', () => {
  const routes = {
    FULL: ['/v1/locations/search?catalog=FULL&q=cal', '/v1/locations/resolve?catalog=FULL&location_id=2840', '/v1/locations/2840?catalog=FULL'],
    LEGACY: ['/v1/locations/search?q=cal', '/v1/locations/resolve?country=US', '/v1/locations/2840'],
  };

  it.each(Object.entries(routes))('every %s route answers 503 CATALOG_NOT_LOADED saying how to load one', async (catalog, urls) => {
    for (const url of urls) {
      const response = await t.app.inject(url);
      expect(response.statusCode, url).toBe(503);
      const body = response.json();
      expect(body).toEqual({ code: 'CATALOG_NOT_LOADED', message: expect.stringContaining(catalog), data: {}, extra: {} });
      expect(body.message).toContain(`\`${LOAD_FORM}\``);
      expect(body.message).toContain('GEO_CATALOG_FILE=<file>');
      // geo:load is refused while the service owns DATA_DIR: the answer says so.
      expect(body.message).toContain('on the embedded default with the service stopped');
    }
  });

  it('the start-up log says the same, in the same form', async () => {
    const lines: string[] = [];
    await prepareReferenceData(t.runtime, (line) => lines.push(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^geo catalog: not loaded; the location routes of both catalogs answer 503 CATALOG_NOT_LOADED until one is\./);
    expect(lines[0]).toContain(`\`${LOAD_FORM}\``);
    expect(lines[0]).toContain('GEO_CATALOG_FILE=<file>');
  });
});

describe('location ids, with the excerpt loaded', () => {
  let port: number;
  beforeAll(async () => {
    await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });

  /** Every route that takes a location id, in both catalogs (LEGACY resolve takes none). */
  const idUrls = (id: string) => [
    `/v1/locations/${id}`,
    `/v1/locations/${id}?catalog=FULL`,
    `/v1/locations/resolve?catalog=FULL&location_id=${id}`,
    `/v1/locations/search?parent_location_id=${id}`,
    `/v1/locations/search?catalog=FULL&parent_location_id=${id}`,
  ];

  it('any digit string neither catalog has is 404 NOT_FOUND naming it on every route, whatever its length', async () => {
    // 20 digits is past any bigint; 101 past the router's default parameter length.
    for (const id of ['02840', '12345678901234567890', '9'.repeat(101), '1'.repeat(5_000)]) {
      for (const url of idUrls(id)) {
        const response = await t.app.inject(url);
        expect(response.statusCode, url.slice(0, 80)).toBe(404);
        expect(response.json()).toEqual({ code: 'NOT_FOUND', message: expect.stringContaining(id), data: {}, extra: {} });
      }
    }
  });

  it('over a socket the same holds up to the request-line limit, past which every route answers 431', async () => {
    for (const url of idUrls('7'.repeat(15_000))) {
      const response = await rawHttp(port, `GET ${url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(response.status, url.slice(0, 80)).toBe(404);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'NOT_FOUND', data: {} });
    }
    for (const url of idUrls('7'.repeat(17_000))) {
      const response = await rawHttp(port, `GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(response.status, url.slice(0, 80)).toBe(431);
      expect(JSON.parse(response.body)).toEqual({ code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', message: expect.any(String), data: {}, extra: {} });
    }
  });

  it('a refusal quoting an id with invisible or bidi characters shows them as \\u escapes, never raw', async () => {
    for (const [sent, seen] of [['2250%E2%80%8B', '2250\\u200b'], ['%E2%80%AE0522', '\\u202e0522'], ['22%C2%AD50', '22\\u00ad50']]) {
      const response = await t.app.inject(`/v1/locations/${sent}?catalog=FULL`);
      expect(response.statusCode).toBe(400);
      const { message } = response.json() as { message: string };
      expect(message).toContain(seen);
      expect(message).not.toMatch(/[\u200b\u202e\u00ad]/u);
    }
  });

  it('the ids both catalogs have still answer', async () => {
    for (const url of idUrls('2840')) expect((await t.app.inject(url)).statusCode, url).toBe(200);
  });
});

describe('a query string that cannot be read', () => {
  it.each(['/v1/locations/search?catalog=FULL&q=%zz', '/v1/locations/search?q=caf%E9', '/v1/locations/resolve?country=U%S', '/v1/locations/2840?catalog%=FULL'])(
    '%s is a 400 naming the part, never a search for the text as it came',
    async (url) => {
      const response = await t.app.inject(url);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/^the query string is not valid percent-encoding \(at ".*%.*"\)/), data: {}, extra: {} });
    },
  );

  it('well-formed escapes and + are read as usual', async () => {
    expect((await t.app.inject('/v1/locations/search?q=caf%C3%A9+x&catalog=FULL')).statusCode).not.toBe(400);
  });
});
