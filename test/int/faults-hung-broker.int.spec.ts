import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultStack, withRuntime, type FaultStack } from '../support/fault-stack.js';
import { postbackWorld } from '../support/postback-world.js';
import { startApi, type ApiProcess } from '../support/service-processes.js';

/**
 * A hung broker (SIGSTOP: it keeps its connections and answers nothing), where a broker that is
 * down refuses connections at once. The Kafka client then retries its requests for minutes: an
 * admin command was answered after 6 minutes (and an api-key:issue its caller gave up on was
 * written when the broker came back), and SIGTERM left the API and the projector running until
 * the broker answered. Private broker, Redis and database (fault-stack.ts).
 */
const ADMIN_TOKEN = 'hung-broker-admin-token-0123456789abcdef';
/** Longer than any answer should take here, far shorter than the Kafka client's retries. */
const CLIENT_TIMEOUT_MS = 30_000;

let stack: FaultStack | undefined;
let api: ApiProcess | undefined;
let application: string;

beforeAll(async () => {
  stack = await startFaultStack();
  ({ application } = await withRuntime(stack.env, async (runtime) => ({ application: (await postbackWorld(runtime)).application })));
  api = await startApi({ ...stack.env, ADMIN_TOKEN });
}, 240_000);

afterAll(async () => {
  await api?.stop('SIGKILL');
  await stack?.close();
});

const issueKey = () =>
  fetch(`${api!.url}/admin/commands/api-key:issue`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ application_id: application }),
    signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
  });

/** Resolves with the exit code, or rejects if the process is still running after the client's timeout. */
const exitWithin = (exited: Promise<number | null>, what: string) =>
  Promise.race([exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} still running ${CLIENT_TIMEOUT_MS / 1000} s after SIGTERM`)), CLIENT_TIMEOUT_MS).unref())]);

describe('a hung broker', () => {
  it('answers an admin command 503 without writing it, and lets the API and the projector stop on SIGTERM', async () => {
    const { kafka, projector, env } = stack!;
    // The application's keys in the read model (a test reads it directly; the service reads it through queries.ts).
    const keys = () =>
      withRuntime(env, async (runtime) => Number((await runtime.db.query<{ n: string }>('SELECT count(*) AS n FROM account_api_keys WHERE application_id = $1', [application])).rows[0]!.n));
    const before = await keys();

    kafka.pause();
    try {
      const refused = await issueKey();
      expect(refused.status, await refused.clone().text()).toBe(503);
      expect(await refused.json()).toMatchObject({ code: 'READ_MODELS_BEHIND', message: expect.stringMatching(/event log did not say where/), data: {} });

      const apiExit = api!.stop('SIGTERM');
      const projectorExit = projector.current.stop('SIGTERM');
      expect([0, 4]).toContain(await exitWithin(apiExit, 'the API'));
      expect([0, 4]).toContain(await exitWithin(projectorExit, 'the projector'));
    } finally {
      kafka.resume();
    }

    // The refused command was never written: with the broker back, the next one (answered once
    // its event is applied, after anything logged before it) is the only new key.
    await projector.start();
    api = await startApi({ ...env, ADMIN_TOKEN });
    const issued = await issueKey();
    expect(issued.status, await issued.clone().text()).toBe(200);
    expect(await keys()).toBe(before + 1);
  }, 180_000);
});
