import { randomBytes } from 'node:crypto';
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
afterAll(async () => {
  for (const service of started) await service.stop();
  await database.drop();
});

async function start(): Promise<{ service: ServiceProcess; base: string }> {
  const env = testEnvironment(database, `t${randomBytes(4).toString('hex')}.`, {
    env: { GEO_CATALOG_FILE: GEO_EXCERPT_FILE, PORT: '0', LOG_LEVEL: 'info', REDIS_URL: '' },
  });
  const service = startServiceProcess('services/api/main.ts', env);
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
  expect(second.service.output()).toContain('is already loaded; nothing to do');
  expect(second.service.output()).not.toContain('geo catalog: loaded');
  await second.service.stop();
});
