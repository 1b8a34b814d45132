import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCommands } from '../../commands/index.js';
import { runCommand } from '../../commands/run.js';
import { keyHashSecretOf } from '../../platform/config/key-hash-secret.js';
import { ApiError } from '../../platform/http/errors.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { newApiKey, sandboxKey } from '../../projections/accounts/api-keys.js';
import { lookupApiKey, type KeyLookup } from '../../projections/accounts/queries.js';
import { accountsProjection } from '../../projections/accounts/projection.js';
import { authenticateOfferRequest } from '../../services/api/auth/offer-route-access.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { waitFor } from '../support/wait-for.js';

/** The key lookup the offer routes will call, over a read model built through the admin commands. */
describe('API key lookup', () => {
  let t: TestRuntime;
  let projection: RunningProjection;
  let secret: string;
  type Issued = { key: string; key_id: string };
  const keys: Record<string, Issued> = {};
  const ids: Record<string, string> = {};

  async function run<R = Record<string, any>>(name: string, input: Record<string, unknown>): Promise<R> {
    const command = adminCommands.find((candidate) => candidate.name === name)!;
    const result = await runCommand(command, input, { runtime: t.runtime, now: () => new Date() });
    await waitFor(async () => (await projection.lag()).every((partition) => partition.lag === 0), { what: `${name} projected` });
    return result as R;
  }

  const lookup = (key: string): Promise<KeyLookup> => lookupApiKey(t.runtime.db, secret, key);

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql' });
    secret = keyHashSecretOf(t.runtime.config);
    projection = await startProjection(accountsProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog });

    ids.developer = (await run('developer:register', { name: 'Active Dev', email: 'active@dev.test' })).developer_id;
    ids.suspendedDeveloper = (await run('developer:register', { name: 'Suspended Dev', email: 'suspended@dev.test' })).developer_id;
    for (const status of ['live', 'live_limited', 'paused', 'suspended']) {
      ids[status] = (await run('application:register', { developer_id: ids.developer, name: `${status} app`, status: 'live' })).application_id;
      keys[status] = await run<Issued>('api-key:issue', { application_id: ids[status] });
      if (status !== 'live') await run('application:set-status', { application_id: ids[status], status });
    }
    keys.test = await run<Issued>('api-key:issue', { application_id: ids.live, kind: 'test' });
    keys.revoked = await run<Issued>('api-key:issue', { application_id: ids.live });
    await run('api-key:revoke', { key_id: keys.revoked!.key_id });
    keys.sandbox = await run<Issued>('sandbox-key:ensure', {});
    ids.ofSuspendedDeveloper = (await run('application:register', { developer_id: ids.suspendedDeveloper, name: 'app' })).application_id;
    keys.ofSuspendedDeveloper = await run<Issued>('api-key:issue', { application_id: ids.ofSuspendedDeveloper });
    await run('developer:set-status', { developer_id: ids.suspendedDeveloper, status: 'suspended' });
  });
  afterAll(async () => {
    await projection?.stop();
    await t?.close();
  });

  it.each(['live', 'live_limited', 'paused', 'suspended'])('a live key of a %s application, active developer', async (status) => {
    expect(await lookup(keys[status]!.key)).toEqual({
      kind: 'live',
      key_id: keys[status]!.key_id,
      application_id: ids[status],
      application_status: status,
      developer_id: ids.developer,
      developer_status: 'active',
    });
  });

  it('a live key of a suspended developer', async () => {
    expect(await lookup(keys.ofSuspendedDeveloper!.key)).toMatchObject({
      kind: 'live', application_id: ids.ofSuspendedDeveloper, application_status: 'live', developer_status: 'suspended',
    });
  });

  it('a test key', async () => {
    expect(await lookup(keys.test!.key)).toMatchObject({ kind: 'test', key_id: keys.test!.key_id, application_id: ids.live });
  });

  it('the shared sandbox key', async () => {
    expect(keys.sandbox!.key).toBe(sandboxKey(secret, 0));
    expect(await lookup(keys.sandbox!.key)).toEqual({ kind: 'sandbox', key_id: keys.sandbox!.key_id });
  });

  it('a revoked key', async () => {
    expect(await lookup(keys.revoked!.key)).toEqual({ kind: 'revoked', key_id: keys.revoked!.key_id });
  });

  it.each([
    ['a well-formed key never issued', () => newApiKey('live')],
    ['an issued key with one character changed', () => `${keys.live!.key.slice(0, -1)}${keys.live!.key.endsWith('a') ? 'b' : 'a'}`],
    ['the sandbox key of another generation', () => sandboxKey(secret, 7)],
    ['an empty string', () => ''],
    ['a very long string', () => `svc_live_${'a'.repeat(500)}`],
    ['the display prefix alone', () => keys.live!.key.slice(0, 15)],
  ])('unknown: %s', async (_what, presented) => {
    expect(await lookup(presented())).toEqual({ kind: 'unknown' });
  });

  it('unknown under another secret: hashes are keyed', async () => {
    expect(await lookupApiKey(t.runtime.db, 'another-secret-0123456789abcdefghij', keys.live!.key)).toEqual({ kind: 'unknown' });
  });

  it('authenticates offer route requests from their headers', async () => {
    const answer = (headers: Record<string, string>, route: 'instances' | 'info' = 'instances') =>
      authenticateOfferRequest(t.runtime.db, secret, headers, route).then(
        (caller) => caller,
        (error: ApiError) => `${error.statusCode} ${error.code}`,
      );
    expect(await answer({ authorization: `Bearer ${keys.live!.key}` })).toEqual({
      key_id: keys.live!.key_id, application_id: ids.live, developer_id: ids.developer,
    });
    expect(await answer({ authorization: `Bearer ${keys.live!.key}`, 'x-svc-test': 'true' })).toBe('401 ENV_MISMATCH');
    expect(await answer({ authorization: `Bearer ${keys.live!.key}`, 'x-svc-test': 'true' }, 'info')).toMatchObject({ application_id: ids.live });
    expect(await answer({})).toBe('401 UNAUTHORIZED');
    expect(await answer({ authorization: keys.live!.key })).toBe('401 UNAUTHORIZED');
    expect(await answer({ authorization: `Bearer ${keys.test!.key}` })).toBe('401 UNAUTHORIZED');
    expect(await answer({ authorization: `Bearer ${keys.revoked!.key}` })).toBe('401 UNAUTHORIZED');
    expect(await answer({ authorization: `Bearer ${keys.sandbox!.key}` }, 'info')).toBe('403 PUBLIC_TEST_SCOPE_DENIED');
    expect(await answer({ authorization: `Bearer ${keys.paused!.key}` })).toBe('403 APPLICATION_NOT_SERVING');
    expect(await answer({ authorization: `Bearer ${keys.suspended!.key}` })).toBe('403 APPLICATION_NOT_SERVING');
    expect(await answer({ authorization: `Bearer ${keys.live_limited!.key}` })).toMatchObject({ application_id: ids.live_limited });
    expect(await answer({ authorization: `Bearer ${keys.ofSuspendedDeveloper!.key}` })).toBe('403 DEVELOPER_SUSPENDED');
  });
});
