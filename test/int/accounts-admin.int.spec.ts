import type { FastifyInstance } from 'fastify';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandInputError, CommandNotFoundError } from '../../commands/command.js';
import { adminCommands } from '../../commands/index.js';
import { runCommand } from '../../commands/run.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { accountsProjection } from '../../projections/accounts/projection.js';
import { createTestApp, testEnvironment, type TestRuntime } from '../support/app.js';
import { entryArgs } from '../support/child-process.js';
import { withoutTable } from '../support/database.js';
import { waitFor } from '../support/wait-for.js';

const ADMIN_TOKEN = 'admin-token-for-accounts-tests-0123456789';
const UNKNOWN = '01900000-0000-7000-8000-000000000000';

/** Rejected admin input names its field and appends nothing, on the real Kafka log. */
describe('accounts admin commands reject bad input', () => {
  let t: TestRuntime & { app: FastifyInstance };
  let projection: RunningProjection;
  const ids: Record<string, string> = {};

  const command = (name: string) => adminCommands.find((candidate) => candidate.name === name)!;
  const execute = (name: string, input: unknown) => runCommand(command(name), input, { runtime: t.runtime, now: () => new Date() });

  async function run(name: string, input: Record<string, unknown>): Promise<Record<string, any>> {
    const result = await execute(name, input);
    await waitFor(async () => (await projection.lag()).every((partition) => partition.lag === 0), { what: `${name} projected` });
    return result;
  }

  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'kafka', env: { ADMIN_TOKEN } });
    projection = await startProjection(accountsProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog });
    ids.developer = (await run('developer:register', { name: 'Dev', email: 'dev@example.test' })).developer_id;
    ids.suspendedDeveloper = (await run('developer:register', { name: 'Gone', email: 'gone@example.test' })).developer_id;
    ids.app = (await run('application:register', { developer_id: ids.developer, name: 'App' })).application_id;
    ids.pausedApp = (await run('application:register', { developer_id: ids.developer, name: 'Paused', status: 'paused' })).application_id;
    ids.suspendedApp = (await run('application:register', { developer_id: ids.developer, name: 'Banned', status: 'suspended' })).application_id;
    ids.appOfSuspended = (await run('application:register', { developer_id: ids.suspendedDeveloper, name: 'Orphan' })).application_id;
    await run('developer:set-status', { developer_id: ids.suspendedDeveloper, status: 'suspended' });
    ids.revokedKey = (await run('api-key:issue', { application_id: ids.app })).key_id;
    await run('api-key:revoke', { key_id: ids.revokedKey });
    ids.placement = (await run('placement:create', { application_id: ids.app, name: 'feed' })).placement_id;
    ids.inactivePlacement = (await run('placement:create', { application_id: ids.app, name: 'old', status: 'inactive' })).placement_id;
    ids.pausedPlacement = (await run('placement:create', { application_id: ids.pausedApp, name: 'p' })).placement_id;
    await run('default-placement:designate', { placement_id: ids.placement });
  });
  afterAll(async () => {
    await projection?.stop();
    await t?.close();
  });

  type Case = [command: string, field: string, kind: 'input' | 'not found', input: (ids: Record<string, string>) => Record<string, unknown>];
  const cases: Case[] = [
    ['developer:register', 'name', 'input', () => ({ email: 'x@example.test' })],
    ['developer:register', 'name', 'input', () => ({ name: '   ', email: 'x@example.test' })],
    ['developer:register', 'email', 'input', () => ({ name: 'X', email: 'not-an-email' })],
    // Names and addresses shown to operators hold no control or bidirectional formatting characters.
    ['developer:register', 'name', 'input', () => ({ name: 'line1\nline2', email: 'x@example.test' })],
    ['developer:register', 'name', 'input', () => ({ name: 'evil\u202Egnp.exe', email: 'x@example.test' })],
    ['developer:register', 'name', 'input', () => ({ name: '\u001b[31mred', email: 'x@example.test' })],
    // UAX #9's implicit marks (RLM, LRM, ALM) are bidirectional formatting characters too.
    ['developer:register', 'name', 'input', () => ({ name: 'evil\u200Fgnp.exe', email: 'x@example.test' })],
    ['application:register', 'name', 'input', (i) => ({ developer_id: i.developer, name: '\u200E' })],
    ['developer:register', 'email', 'input', () => ({ name: 'X', email: 'a\u061C@example.test' })],
    // A name of zero-width characters only is blank on every screen.
    ['developer:register', 'name', 'input', () => ({ name: '\u200B', email: 'x@example.test' })],
    ['placement:create', 'name', 'input', (i) => ({ application_id: i.app, name: ' \uFEFF\u2060 ' })],
    ['developer:register', 'email', 'input', () => ({ name: 'X', email: 'a\u0007@example.test' })],
    ['developer:register', 'email', 'input', () => ({ name: 'X', email: 'a@example.test\u0085' })],
    ['developer:register', 'email', 'input', () => ({ name: 'X', email: 'a\u2066@example.test' })],
    ['application:register', 'name', 'input', (i) => ({ developer_id: i.developer, name: 'App\u0000' })],
    ['placement:create', 'name', 'input', (i) => ({ application_id: i.app, name: 'feed\u2069' })],
    ['api-key:issue', 'label', 'input', (i) => ({ application_id: i.app, label: 'server\r\n1' })],
    ['developer:register', 'email', 'input', () => ({ name: 'X', email: 'DEV@example.test' })],
    ['developer:register', 'status', 'input', () => ({ name: 'X', email: 'x@example.test', status: 'active' })],
    ['developer:set-status', 'developer_id', 'input', (i) => ({ developer_id: i.developer!.toUpperCase(), status: 'suspended' })],
    ['developer:set-status', 'status', 'input', (i) => ({ developer_id: i.developer, status: 'banned' })],
    ['developer:set-status', 'status', 'input', (i) => ({ developer_id: i.developer, status: 'active' })],
    ['developer:set-status', 'developer_id', 'not found', () => ({ developer_id: UNKNOWN, status: 'suspended' })],
    ['application:register', 'developer_id', 'input', (i) => ({ developer_id: i.suspendedDeveloper, name: 'New' })],
    ['application:register', 'developer_id', 'not found', () => ({ developer_id: UNKNOWN, name: 'New' })],
    ['application:register', 'status', 'input', (i) => ({ developer_id: i.developer, name: 'New', status: 'deleted' })],
    ['application:set-status', 'status', 'input', (i) => ({ application_id: i.app, status: 'live' })],
    ['application:set-status', 'application_id', 'not found', () => ({ application_id: UNKNOWN, status: 'paused' })],
    ['api-key:issue', 'kind', 'input', (i) => ({ application_id: i.app, kind: 'sandbox' })],
    ['api-key:issue', 'application_id', 'input', (i) => ({ application_id: i.suspendedApp })],
    ['api-key:issue', 'application_id', 'input', (i) => ({ application_id: i.appOfSuspended })],
    ['api-key:issue', 'application_id', 'not found', () => ({ application_id: UNKNOWN })],
    ['api-key:issue', 'key', 'input', (i) => ({ application_id: i.app, key: 'svc_live_mine' })],
    ['api-key:revoke', 'key_id', 'input', (i) => ({ key_id: i.revokedKey })],
    ['api-key:revoke', 'key_id', 'not found', () => ({ key_id: UNKNOWN })],
    // A reason is read in the audit trail: a blank one says nothing, an escape sequence rewrites what is shown.
    ['api-key:revoke', 'reason', 'input', (i) => ({ key_id: i.revokedKey, reason: '   ' })],
    ['application:set-status', 'reason', 'input', (i) => ({ application_id: i.app, status: 'paused', reason: 'ok\u001b[2K' })],
    ['developer:set-status', 'reason', 'input', (i) => ({ developer_id: i.developer, status: 'suspended', reason: 'line1\nline2' })],
    ['sandbox-key:ensure', 'generation', 'input', () => ({ generation: 3 })],
    ['placement:create', 'application_id', 'input', (i) => ({ application_id: i.suspendedApp, name: 'x' })],
    ['placement:create', 'status', 'input', (i) => ({ application_id: i.app, name: 'x', status: 'paused' })],
    ['placement:set-status', 'placement_id', 'input', (i) => ({ placement_id: i.placement, status: 'inactive' })],
    ['placement:set-status', 'status', 'input', (i) => ({ placement_id: i.inactivePlacement, status: 'inactive' })],
    ['placement:set-status', 'placement_id', 'not found', () => ({ placement_id: UNKNOWN, status: 'active' })],
    ['default-placement:designate', 'placement_id', 'input', (i) => ({ placement_id: i.inactivePlacement })],
    ['default-placement:designate', 'placement_id', 'input', (i) => ({ placement_id: i.pausedPlacement })],
    ['default-placement:designate', 'placement_id', 'input', (i) => ({ placement_id: i.placement })],
    ['default-placement:designate', 'placement_id', 'not found', () => ({ placement_id: UNKNOWN })],
  ];

  it.each(cases)('%s: rejects (%#), naming %s (%s), and appends nothing', async (name, field, kind, input) => {
    const before = await t.runtime.eventLog.endOffsets('accounts');
    const error = await execute(name, input(ids)).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(kind === 'input' ? CommandInputError : CommandNotFoundError);
    expect((error as CommandInputError).field).toBe(field);
    expect((error as Error).message.startsWith(`${field}: `)).toBe(true);
    expect(await t.runtime.eventLog.endOffsets('accounts')).toEqual(before);
  });

  it('targeting checked before any FULL catalog is loaded: 503 CATALOG_NOT_LOADED saying how to load one, nothing logged', async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const before = await t.runtime.eventLog.endOffsets('offers');
    const payload = { partner_id: UNKNOWN, kind: 'local', status: 'active', targeting: [{ geo: { include: [{ location_id: '2840' }] } }] };
    const answer = await t.app.inject({ method: 'POST', url: '/admin/commands/offer:upsert', headers, payload });
    expect(answer.statusCode, answer.body).toBe(503);
    expect(answer.json()).toMatchObject({ code: 'CATALOG_NOT_LOADED', message: expect.stringMatching(/FULL location catalog is not loaded \(load one with `npm run geo:load/), data: {} });
    expect(await t.runtime.eventLog.endOffsets('offers')).toEqual(before);
  });

  it('the admin HTTP API answers 400 or 404 naming the field, and returns an issued key once', async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const before = await t.runtime.eventLog.endOffsets('accounts');
    const bad = await t.app.inject({ method: 'POST', url: '/admin/commands/api-key:issue', headers, payload: { application_id: ids.app, kind: 'prod' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'BAD_REQUEST', data: {}, extra: { field: 'kind' } });
    const missing = await t.app.inject({ method: 'POST', url: '/admin/commands/api-key:issue', headers, payload: { application_id: UNKNOWN } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'NOT_FOUND', extra: { field: 'application_id' } });
    // JSON sent as text is refused as what it is, not as an input that is not an object.
    for (const url of ['/admin/commands/api-key:issue', '/admin/replays']) {
      const asText = await t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'text/plain' }, payload: JSON.stringify({ application_id: ids.app }) });
      expect(asText.statusCode, asText.body).toBe(415);
      expect(asText.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'text/plain is not accepted; send the input as JSON with Content-Type: application/json', data: {} });
    }
    // A JSON string is JSON: an input that is not an object, as 1 or [] are.
    for (const url of ['/admin/commands/api-key:issue', '/admin/replays']) {
      const jsonString = await t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: '"{}"' });
      expect(jsonString.statusCode, jsonString.body).toBe(400);
      expect(jsonString.json()).toMatchObject({ code: 'BAD_REQUEST', data: {} });
    }
    expect(await t.runtime.eventLog.endOffsets('accounts')).toEqual(before);

    const good = await t.app.inject({ method: 'POST', url: '/admin/commands/api-key:issue', headers, payload: { application_id: ids.app, label: 'api' } });
    expect(good.statusCode).toBe(200);
    expect(good.json().data).toMatchObject({ kind: 'live', key: expect.stringMatching(/^svc_live_/), application_id: ids.app });
    // Shown once: no cache between the operator and the service may keep it, nor a refusal.
    for (const answer of [good, bad, missing]) expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('the admin HTTP API answers 503 COMMAND_UNAVAILABLE, not a 500, when a read model fails while a command runs; nothing is appended', async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const before = await t.runtime.eventLog.endOffsets('accounts');
    await withoutTable(t.runtime.db, 'account_developers', async () => {
      const answer = await t.app.inject({ method: 'POST', url: '/admin/commands/developer:register', headers, payload: { name: 'Later', email: 'later@example.test' } });
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toMatchObject({ code: 'COMMAND_UNAVAILABLE', message: expect.stringMatching(/^the command could not complete: .*account_developers.*; retry shortly$/), data: {} });
    });
    expect(await t.runtime.eventLog.endOffsets('accounts')).toEqual(before);
    const retried = await t.app.inject({ method: 'POST', url: '/admin/commands/developer:register', headers, payload: { name: 'Later', email: 'later@example.test' } });
    expect(retried.statusCode).toBe(200);
  });

  /** The admin CLI in a process of its own, on this test's Kafka log and database. */
  const cli = (...args: string[]) => {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...testEnvironment(t.database, t.topicPrefix, { eventLog: 'kafka' }) };
    return promisify(execFile)(process.execPath, [...entryArgs('services/admin/cli.ts'), ...args], { env }).then(
      (done) => ({ code: 0, stderr: done.stderr }),
      (failed: { code: number; stderr: string }) => ({ code: failed.code, stderr: failed.stderr }),
    );
  };

  it('the CLI on Kafka refuses a command whose read models are behind the log (exit 4) instead of checking a stale one', async () => {
    await projection.stop();
    try {
      // Appended, not projected: the accounts read model does not know this email yet.
      await execute('developer:register', { name: 'Lagging', email: 'lagging@cli.example' });
      const before = await t.runtime.eventLog.endOffsets('accounts');
      const behind = await cli('developer:register', '--name', 'Lagging', '--email', 'lagging@cli.example');
      expect(behind).toMatchObject({ code: 4, stderr: expect.stringContaining('did not catch up with the log') });
      expect(await t.runtime.eventLog.endOffsets('accounts')).toEqual(before);
    } finally {
      projection = await startProjection(accountsProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog });
    }
    // Caught up, the same registration is the duplicate it is.
    const duplicate = await cli('developer:register', '--name', 'Lagging', '--email', 'lagging@cli.example');
    expect(duplicate).toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: email: /) });
  });

  it('the CLI exits 2 for invalid input, 3 for a missing record, and names the field', async () => {
    const before = await t.runtime.eventLog.endOffsets('accounts');
    const latin1File = join(mkdtempSync(join(tmpdir(), 'admin-cli-')), 'developer.json');
    writeFileSync(latin1File, Buffer.from('{"name":"caf\xe9","email":"latin1@cli.example"}', 'latin1'));
    const [invalid, missing, repeated, twiceInJson, notUtf8File, notUtf8Flag] = await Promise.all([
      cli('application:set-status', '--application-id', ids.app!, '--status', 'archived'),
      cli('application:set-status', '--application-id', UNKNOWN, '--status', 'paused'),
      // Two values for one flag: which was meant is not for the CLI to guess (the HTTP API refuses a field given twice too).
      cli('application:set-status', '--application-id', ids.app!, '--status', 'paused', '--status', 'live'),
      cli('developer:register', '--input', '{"name":"first","email":"twice@cli.example","name":"second"}'),
      cli('developer:register', '--input-file', latin1File),
      // What a shell passes as bytes that are not UTF-8 reaches the process as U+FFFD.
      cli('developer:register', '--name', 'caf\uFFFD', '--email', 'mangled@cli.example'),
    ]);
    expect(twiceInJson).toMatchObject({ code: 2, stderr: expect.stringContaining('--input: gives "name" twice; give each field once') });
    expect(notUtf8File).toMatchObject({ code: 2, stderr: expect.stringContaining('--input-file: is not UTF-8 text') });
    expect(notUtf8Flag).toMatchObject({ code: 2, stderr: expect.stringContaining('--name: is not UTF-8 text') });
    expect(invalid).toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: status: /) });
    expect(repeated).toMatchObject({ code: 2, stderr: expect.stringMatching(/^error: option '--status <value>' argument 'live' is invalid\. it is given more than once; give it once/) });
    expect(missing).toMatchObject({ code: 3, stderr: expect.stringMatching(/^error: application_id: no application/) });
    expect(await t.runtime.eventLog.endOffsets('accounts')).toEqual(before);
  });
});
