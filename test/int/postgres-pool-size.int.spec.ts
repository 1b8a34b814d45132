import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../support/app.js';

/** DATABASE_POOL_SIZE bounds the sessions a process keeps open, so several processes fit under the server's max_connections. */
let t: TestRuntime;
beforeAll(async () => {
  t = await createTestRuntime({ eventLog: 'sql', env: { DATABASE_POOL_SIZE: '2' } });
});
afterAll(async () => {
  await t?.close();
});

it('statements made at once share as many sessions as DATABASE_POOL_SIZE allows, no more', async () => {
  const pids = await Promise.all(Array.from({ length: 8 }, () => t.runtime.db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)').then(({ rows }) => rows[0]!.pid)));
  expect(new Set(pids).size).toBe(2);
});
