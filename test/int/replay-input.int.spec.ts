import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { ownLines, runCli } from '../support/cli.js';
import { clusterTopicsStartingWith } from '../support/kafka-topics.js';

type App = Awaited<ReturnType<typeof createTestApp>>['app'];
const ADMIN_TOKEN = 'admin-token-for-replay-input-tests-0123456789';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** Times that look like RFC 3339 but name no instant: a day the month does not have, hour 24, a year past 9999. */
const NOT_AN_INSTANT = ['2026-02-30T00:00:00Z', '2026-11-01T24:00:00Z', '2026-04-31T12:00:00+02:00', '9999-12-31T23:30:00-01:00'];

describe('replay input that names no point in the log', () => {
  let t: TestRuntime & { app: App };
  let env: Record<string, string>;

  const replaySchemas = async () =>
    (await t.runtime.db.query<{ name: string }>("SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'replay%'")).rows.map((row) => row.name);

  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'sql', env: { ADMIN_TOKEN } });
    env = testEnvironment(t.database, t.topicPrefix, { eventLog: 'sql' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(NOT_AN_INSTANT)('--as-of %s exits 2 with one line naming the flag, rebuilding nothing', async (time) => {
    const result = await runCli('services/replay/cli.ts', ['--projection', 'ledger', '--as-of', time], env);
    expect(result.status, result.stdout + result.stderr).toBe(2);
    // The text has the shape: the message says the instant is what is wrong.
    expect(ownLines(result.stderr)).toEqual([
      `error: --as-of: ${JSON.stringify(time)} names no instant taken here: a date the calendar does not have, hour 24, minute or second 60 (leap seconds are not taken), an offset of a day or more, or a year outside 0001-9999; give a real one, e.g. 2026-11-01T00:00:00Z`,
    ]);
    expect(result.stdout).toBe('');
    expect(await replaySchemas()).toEqual([]);
  });

  it('an --as-of to come exits 2 (it would be the read models of now under a name saying otherwise); a minute of clock skew is let through', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const result = await runCli('services/replay/cli.ts', ['--projection', 'ledger', '--as-of', future], env);
    expect(result.status, result.stdout + result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(new RegExp(`^error: --as-of: ${future.replace(/\./g, '\\.')} is in the future \\(now is .*\\); for the read models as they are now, replay without a time and keep the result$`))]);
    expect(await replaySchemas()).toEqual([]);
    const api = await t.app.inject({ method: 'POST', url: '/admin/replays', headers: admin, payload: { projections: ['ledger'], as_of: future } });
    expect(api.statusCode).toBe(400);
    expect(api.json()).toMatchObject({ code: 'BAD_REQUEST', extra: { field: 'as_of' } });
    const skewed = await runCli('services/replay/cli.ts', ['--projection', 'ledger', '--as-of', new Date(Date.now() + 2_000).toISOString(), '--json'], env);
    expect(skewed.status, skewed.stderr).toBe(0);
    for (const schema of await replaySchemas()) await t.runtime.db.query(`DROP SCHEMA ${schema} CASCADE`);
  });

  it('a TOPIC_PREFIX the embedded log has no topics under exits 2 naming it, rebuilding nothing', async () => {
    const prefix = `${t.topicPrefix}elsewhere.`;
    const result = await runCli('services/replay/cli.ts', ['--projection', 'serves,clicks'], testEnvironment(t.database, prefix, { eventLog: 'sql' }));
    expect(result.status, result.stdout + result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([
      `error: configuration: TOPIC_PREFIX is ${JSON.stringify(prefix)}, and this log has no topic ${prefix}serves, ${prefix}clicks: check TOPIC_PREFIX (the service creates its topics when it starts); nothing was replayed`,
    ]);
    expect(await replaySchemas()).toEqual([]);
  });

  it('an empty --projection exits 2 instead of rebuilding every read model', async () => {
    for (const value of ['', ' , ']) {
      const result = await runCli('services/replay/cli.ts', ['--projection', value], env);
      expect(result.status, result.stderr).toBe(2);
      expect(ownLines(result.stderr)).toEqual(['error: --projection: names no read model; give names (comma-separated) or --all']);
      expect(await replaySchemas()).toEqual([]);
    }
  });

  it('an empty projections list on the admin API is a 400 naming it, as the CLI refuses it, not a rebuild of every read model', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/admin/replays', headers: admin, payload: { projections: [], swap: true } });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'BAD_REQUEST', message: 'projections: names no read model; give names, or leave projections out for every one', extra: { field: 'projections' } });
    expect(await replaySchemas()).toEqual([]);
  });

  it('a JSON null body on the admin API is refused as the other non-objects are, not taken for no body (a rebuild of every read model)', async () => {
    for (const url of ['/admin/replays', '/admin/replays/drop']) {
      const response = await t.app.inject({ method: 'POST', url, headers: { ...admin, 'content-type': 'application/json' }, payload: 'null' });
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400);
      expect(response.json().code).toBe('BAD_REQUEST');
    }
    expect(await replaySchemas()).toEqual([]);
  });

  it('--keys out of range says which numbers it takes', async () => {
    for (const keys of ['-1', '1001', 'ten']) {
      const result = await runCli('services/replay/cli.ts', ['--projection', 'ledger', '--keys', keys], env);
      expect(result.status, result.stderr).toBe(2);
      expect(ownLines(result.stderr)).toEqual(['error: --keys: expected a whole number from 0 to 1000']);
    }
  });

  it.each(NOT_AN_INSTANT)('POST /admin/replays with as_of %s is a 400 naming as_of, no job started', async (time) => {
    const response = await t.app.inject({ method: 'POST', url: '/admin/replays', headers: admin, payload: { projections: ['ledger'], as_of: time } });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'BAD_REQUEST', extra: { field: 'as_of' } });
    expect(response.json().message).toContain(`${JSON.stringify(time)} names no instant`);
    expect(await replaySchemas()).toEqual([]);
  });
});

describe('replay --kept on a Kafka log', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists the kept schemas without creating a topic (a TOPIC_PREFIX naming no environment leaves the cluster as it was)', async () => {
    const prefix = `${t.topicPrefix}elsewhere.`;
    const result = await runCli('services/replay/cli.ts', ['--kept', '--json'], testEnvironment(t.database, prefix, { eventLog: 'kafka' }));
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ kept: [] });
    expect(await clusterTopicsStartingWith(prefix)).toEqual([]);
  });

  it('a replay under a TOPIC_PREFIX naming no environment exits 2 naming it, creating no topic and no schema', async () => {
    const prefix = `${t.topicPrefix}elsewhere.`;
    const result = await runCli('services/replay/cli.ts', ['--projection', 'ledger'], testEnvironment(t.database, prefix, { eventLog: 'kafka' }));
    expect(result.status, result.stdout + result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([
      `error: configuration: TOPIC_PREFIX is ${JSON.stringify(prefix)}, and this log has no topic ${prefix}postbacks: check TOPIC_PREFIX and KAFKA_BROKERS (the service creates its topics when it starts); nothing was replayed`,
    ]);
    expect(await clusterTopicsStartingWith(prefix)).toEqual([]);
    const schemas = await t.runtime.db.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'replay%'");
    expect(schemas.rows).toEqual([]);
  });

  it('a replay on the right TOPIC_PREFIX still runs (every topic the read models read is there)', async () => {
    const result = await runCli('services/replay/cli.ts', ['--projection', 'ledger', '--json'], testEnvironment(t.database, t.topicPrefix, { eventLog: 'kafka' }));
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ mode: 'compare', identical: true });
  });
});
