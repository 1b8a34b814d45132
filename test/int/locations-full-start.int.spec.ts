import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnvironment } from '../support/app.js';
import { startServiceProcess, type ServiceProcess } from '../support/child-process.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

let database: TestDatabase;
const started: ServiceProcess[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
});
const cacheDir = mkdtempSync(join(tmpdir(), 'geo-index-start-'));
afterAll(async () => {
  for (const service of started) await service.stop();
  await database.drop();
  rmSync(cacheDir, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}): Promise<{ service: ServiceProcess; base: string }> {
  const environment = testEnvironment(database, `t${randomBytes(4).toString('hex')}.`, {
    env: { GEO_CATALOG_FILE: GEO_EXCERPT_FILE, PORT: '0', LOG_LEVEL: 'info', REDIS_URL: '', ...env },
  });
  const service = startServiceProcess('services/api/main.ts', environment);
  started.push(service);
  const listening = await service.waitForLog((entry) => String(entry.msg).startsWith('Server listening at'));
  return { service, base: String(listening.msg).replace('Server listening at ', '') };
}

it('npm start loads GEO_CATALOG_FILE before serving, and a second start does no work', async () => {
  const first = await start();
  expect(first.service.output()).toContain('geo catalog: loaded 3143 active of 3143 rows (2025-07-15)');
  const response = await fetch(`${first.base}/v1/locations/21137?catalog=FULL`);
  expect(response.status).toBe(200);
  expect(((await response.json()) as { data: { location_ids: string[] } }).data.location_ids).toEqual(['21137', '2840']);
  await first.service.stop();

  const second = await start();
  expect(second.service.output()).toContain('is already loaded; nothing to load (the LEGACY registry is rebuilt from it only if it lags)');
  expect(second.service.output()).toContain('legacy registry: up to date with');
  expect(second.service.output()).not.toContain('geo catalog: loaded');
  await second.service.stop();
});

it('with GEO_INDEX_CACHE_DIR, a restart loads the location indexes saved by the previous start and answers the same', async () => {
  const paths = ['/v1/locations/search?catalog=FULL&q=cal', '/v1/locations/21137?catalog=FULL', '/v1/locations/search?q=cal', '/v1/locations/21137'];
  const bodies = async (base: string) => Promise.all(paths.map(async (path) => {
    const response = await fetch(`${base}${path}`);
    return `${response.status} ${await response.text()}`;
  }));
  const logged = (text: string) => (entry: Record<string, unknown>) => String(entry.msg).includes(text);

  const first = await start({ GEO_INDEX_CACHE_DIR: cacheDir });
  await first.service.waitForLog(logged('FULL index snapshot written'));
  await first.service.waitForLog(logged('LEGACY index snapshot written'));
  const expected = await bodies(first.base);
  expect(expected.every((body) => body.startsWith('200 '))).toBe(true);
  await first.service.stop();

  const second = await start({ GEO_INDEX_CACHE_DIR: cacheDir });
  expect(second.service.output()).toContain('FULL index loaded from its snapshot');
  expect(second.service.output()).toContain('LEGACY index loaded from its snapshot');
  expect(await bodies(second.base)).toEqual(expected);
  await second.service.stop();
});

it('npm start on a port another process holds exits 4 with one line naming PORT, not a stack trace', async () => {
  const first = await start();
  const port = new URL(first.base).port;
  const environment = testEnvironment(database, `t${randomBytes(4).toString('hex')}.`, { env: { PORT: port, REDIS_URL: '' } });
  const second = startServiceProcess('services/api/main.ts', environment);
  started.push(second);
  expect(await second.exited).toBe(4);
  expect(second.output()).toContain(`error: cannot start the API: PORT: ${port} on 127.0.0.1 is taken by another process; stop what holds it, or choose another port`);
  expect(second.output()).not.toMatch(/\n\s+at /);
  await first.service.stop();
});

it('npm start with a catalog file it refuses exits 2 with one plain line saying why, whatever LOG_LEVEL lets through', async () => {
  const environment = testEnvironment(database, `t${randomBytes(4).toString('hex')}.`, {
    env: { GEO_CATALOG_FILE: GEO_EXCERPT_FILE, GEO_CATALOG_SHA256: '0'.repeat(64), PORT: '0', LOG_LEVEL: 'silent', REDIS_URL: '' },
  });
  const refused = startServiceProcess('services/api/main.ts', environment);
  started.push(refused);
  expect(await refused.exited).toBe(2);
  expect(refused.output()).toMatch(/^error: cannot start the API: GEO_CATALOG_FILE: Refusing "geotargets-2025-07-15-excerpt.csv": its sha256 is [0-9a-f]{64}, but GEO_CATALOG_SHA256 expects 0{64}/m);
  expect(refused.output()).not.toMatch(/\n\s+at /);
});
