import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminCommands } from '../../commands/index.js';
import { runCommand } from '../../commands/run.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { accountsProjection } from '../../projections/accounts/projection.js';
import { findDefaultPlacement } from '../../projections/accounts/queries.js';
import { accountsChecksum } from '../support/read-model-checksums.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { replayProjection } from '../support/replay.js';
import { waitFor } from '../support/wait-for.js';

/** Every accounts event type, appended by the admin commands to real Kafka and projected. */
describe('accounts projection on Kafka', () => {
  let t: TestRuntime;
  let projection: RunningProjection;
  const clearKeys: string[] = [];

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
    projection = await startProjection(accountsProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog });
  });
  afterAll(async () => {
    await projection?.stop();
    await t?.close();
  });

  /** Runs a command, then waits until the projection has applied everything in the log. */
  async function run(name: string, input: Record<string, unknown>): Promise<Record<string, any>> {
    const command = adminCommands.find((candidate) => candidate.name === name)!;
    const result = await runCommand(command, input, { runtime: t.runtime, now: () => new Date() });
    await waitFor(async () => (await projection.lag()).every((partition) => partition.lag === 0), { what: `${name} projected` });
    return result;
  }

  const row = async (table: string, key: string, id: string) =>
    (await t.runtime.db.query<Record<string, any>>(`SELECT * FROM ${table} WHERE ${key} = $1`, [id])).rows[0];

  it('projects developers, applications, keys, placements and the default placement', async () => {
    const { developer_id } = await run('developer:register', { name: 'Northwind Games', email: 'Ops@Northwind.test' });
    expect(await row('account_developers', 'developer_id', developer_id)).toMatchObject({
      name: 'Northwind Games', email: 'ops@northwind.test', status: 'active', status_reason: null,
    });

    const { application_id } = await run('application:register', { developer_id, name: 'Puzzle Quest', status: 'live_limited' });
    expect(await row('account_applications', 'application_id', application_id)).toMatchObject({ developer_id, status: 'live_limited' });
    await run('application:set-status', { application_id, status: 'live', reason: 'review passed' });
    expect(await row('account_applications', 'application_id', application_id)).toMatchObject({ status: 'live', status_reason: 'review passed' });

    const live = await run('api-key:issue', { application_id, label: 'game server' });
    const test = await run('api-key:issue', { application_id, kind: 'test' });
    clearKeys.push(live.key, test.key);
    expect(live.key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    expect(test.key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
    const liveRow = await row('account_api_keys', 'key_id', live.key_id);
    expect(liveRow).toMatchObject({ kind: 'live', application_id, label: 'game server', display_prefix: live.key.slice(0, 15), revoked_at: null });
    expect(liveRow!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(liveRow)).not.toContain(live.key);

    await run('api-key:revoke', { key_id: test.key_id, reason: 'rotated' });
    expect(await row('account_api_keys', 'key_id', test.key_id)).toMatchObject({ revocation_reason: 'rotated' });
    expect((await row('account_api_keys', 'key_id', test.key_id))!.revoked_at).toBeInstanceOf(Date);

    const { placement_id } = await run('placement:create', { application_id, name: 'level complete' });
    expect(await row('account_placements', 'placement_id', placement_id)).toMatchObject({ application_id, status: 'active' });
    await run('placement:set-status', { placement_id, status: 'inactive' });
    expect(await row('account_placements', 'placement_id', placement_id)).toMatchObject({ status: 'inactive' });
    await run('placement:set-status', { placement_id, status: 'active' });

    await run('default-placement:designate', { placement_id });
    expect(await findDefaultPlacement(t.runtime.db)).toEqual({
      placement_id, application_id, placement_status: 'active', application_status: 'live', developer_status: 'active',
    });

    await run('developer:set-status', { developer_id, status: 'suspended', reason: 'chargebacks' });
    expect(await row('account_developers', 'developer_id', developer_id)).toMatchObject({ status: 'suspended', status_reason: 'chargebacks' });
  });

  it('shows the same sandbox key on every call and a new one after revocation', async () => {
    const first = await run('sandbox-key:ensure', {});
    const again = await run('sandbox-key:ensure', {});
    expect(first).toMatchObject({ issued: true });
    expect(again).toEqual({ key_id: first.key_id, kind: 'sandbox', key: first.key, issued: false });
    expect(await row('account_api_keys', 'key_id', first.key_id)).toMatchObject({ kind: 'sandbox', application_id: null });

    await run('api-key:revoke', { key_id: first.key_id });
    const next = await run('sandbox-key:ensure', {});
    expect(next).toMatchObject({ issued: true });
    expect(next.key).not.toBe(first.key);
    clearKeys.push(first.key, next.key);
  });

  it('stores every event type in the registry, and no clear key in any message', async () => {
    const stack = inject('stack');
    const accountTypes = Object.values(EventType).filter((type) => type.startsWith('offerledger.accounts.'));
    expect(accountTypes).toHaveLength(9);
    // Each subject asked by name: the registry pages its subject list.
    for (const type of accountTypes) {
      const subject = `${t.topicPrefix}accounts-${type}`;
      expect((await fetch(`${stack.schemaRegistryUrl}/subjects/${encodeURIComponent(subject)}/versions`)).status, subject).toBe(200);
    }

    const kafka = new Kafka({ brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `${t.topicPrefix}raw-accounts` });
    const total = (await t.runtime.eventLog.endOffsets('accounts')).reduce((sum, partition) => sum + Number(partition.offset), 0);
    const raw: Buffer[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: `${t.topicPrefix}accounts`, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void raw.push(message.value!) });
    try {
      await waitFor(() => raw.length >= total, { what: 'every raw accounts message' });
    } finally {
      await consumer.disconnect();
    }
    const bytes = Buffer.concat(raw);
    expect(clearKeys.length).toBeGreaterThanOrEqual(4);
    for (const key of clearKeys) expect(bytes.includes(key.slice(-20))).toBe(false);
  });

  it('rebuilds the same read model from the log', async () => {
    const before = await accountsChecksum(t.runtime.db);
    expect(before).toMatchObject({ developers: '1', applications: '1', keys: '4', placements: '1' });
    await projection.stop();
    await replayProjection(t.runtime.db, t.runtime.eventLog, accountsProjection);
    expect(await accountsChecksum(t.runtime.db)).toEqual(before);
    projection = await startProjection(accountsProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog });
  });
});
