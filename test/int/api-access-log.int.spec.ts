import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnvironment } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startApi, type ApiProcess } from '../support/service-processes.js';

/** The API's access log, as an operator reads it: a credential sent in a URL by mistake is not in it. */
const ADMIN_TOKEN = `access-log-admin-token-${randomBytes(8).toString('hex')}`;
let database: TestDatabase;
let api: ApiProcess;

beforeAll(async () => {
  database = await createTestDatabase();
  api = await startApi({ ...testEnvironment(database, `t${randomBytes(4).toString('hex')}.`), LOG_LEVEL: 'info', ADMIN_TOKEN });
});
afterAll(async () => {
  await api?.stop();
  await database?.drop();
});

describe('access log', () => {
  it.each([
    ['/admin/commands?token=', '/admin/commands?token=[redacted]'],
    ['/admin/postbacks?decision=accepted&access_token=', '/admin/postbacks?decision=accepted&access_token=[redacted]'],
    ['/admin/postbacks/', '/admin/postbacks/[redacted]'],
    ['/admin/login?next=/admin/postbacks?q=', '/admin/login?next=/admin/postbacks?q=[redacted]'],
  ])('%s<the admin token> is logged as %s', async (path, logged) => {
    const response = await fetch(`${api.url}${path}${ADMIN_TOKEN}`);
    expect(response.status).toBeLessThan(500);
    await response.body?.cancel();
    const entry = await api.waitForLog((line) => (line.req as { url?: string } | undefined)?.url === logged);
    expect(entry.req).toMatchObject({ method: 'GET', remoteAddress: '127.0.0.1' });
    expect(api.output()).not.toContain(ADMIN_TOKEN);
  });
});
