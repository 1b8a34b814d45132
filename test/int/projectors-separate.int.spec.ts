import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime } from '../../platform/runtime.js';
import { testEnvironment } from '../support/app.js';
import { catalogEvents } from '../support/catalog-events.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startApi, startProjector } from '../support/service-processes.js';
import { waitFor } from '../support/wait-for.js';

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

async function apiWithEvents(projectors: 'inline' | 'separate', count: number) {
  const database = await createTestDatabase();
  databases.push(database);
  const env = { ...testEnvironment(database, `t${randomBytes(4).toString('hex')}.`), LOG_LEVEL: 'info', PROJECTORS: projectors };
  const api = await startApi(env);
  const writer = await openRuntime(loadConfig(env));
  await writer.eventLog.append('catalog', catalogEvents(count));
  await writer.close();
  return { env, api, database };
}

const appliedBy = (output: string, projection: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.event === 'batch_applied' && entry.projection === projection)
    .reduce((sum, entry) => sum + Number(entry.applied), 0);

/**
 * PROJECTORS=separate (docker-compose's API beside its projector service): the API builds no read
 * model, so a projector process started after the events applies every one of them itself. With
 * the default (inline) the API applies them.
 */
describe('where the read models are built', () => {
  it('PROJECTORS=separate: the API applies nothing; the projector process applies every event', async () => {
    const count = 3_000;
    const { env } = await apiWithEvents('separate', count);
    const projector = await startProjector(env);
    await projector.waitForLog((entry) => entry.event === 'caught_up', 120_000);
    expect(appliedBy(projector.output(), 'catalog-entries')).toBe(count);
  }, 240_000);

  it('PROJECTORS=inline (the default): the API applies the events itself', async () => {
    const count = 500;
    const { database } = await apiWithEvents('inline', count);
    await waitFor(async () => {
      const { rows } = await database.db.query<{ next_offset: string }>(
        "SELECT next_offset FROM projection_offsets WHERE projection = 'catalog-entries'",
      );
      return Number(rows[0]?.next_offset ?? 0) === count;
    }, { timeoutMs: 60_000, what: 'the API to apply the catalog events' });
  }, 240_000);
});
