import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountEvent } from '../../commands/accounts/events.js';
import type { LoggedEvent, NewEvent } from '../../platform/events/event-log.js';
import { hashApiKey, sandboxKey } from '../../projections/accounts/api-keys.js';
import { accountsProjection } from '../../projections/accounts/projection.js';
import { accountsChecksum } from '../support/read-model-checksums.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';

const T = Date.UTC(2026, 10, 22);
const dev = '01900000-0000-7000-8000-0000000000d1';
const app = '01900000-0000-7000-8000-0000000000a1';

/** Events at the given offsets of one partition. */
const at = (offset: number, ...events: NewEvent[]): LoggedEvent[] =>
  events.map((event, index) => ({ ...event, topic: 'accounts', partition: 0, offset: String(offset + index), schemaId: 0, timestamp: new Date(T) }));

/**
 * The projection's own guards, applied without the runner (which already drops redelivered
 * offsets): rows never move back to an older position, revocation is terminal, a duplicate key
 * hash never stops the projection.
 */
describe('accounts projection guards', () => {
  let t: TestRuntime;
  const apply = (events: LoggedEvent[]) => t.runtime.db.transaction((tx) => accountsProjection.apply(tx, events));
  const one = async (sql: string, params: unknown[]) => (await t.runtime.db.query<Record<string, unknown>>(sql, params)).rows[0];

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql' });
  });
  afterAll(async () => t?.close());

  it('a replayed older event does not move a row back, in the insert and the update paths', async () => {
    const registered = accountEvent(EventType.DeveloperRegistered, { event_id: 'e0', developer_id: dev, name: 'D', email: 'd@x.test', registered_at: T });
    const status = (eventId: string, value: 'active' | 'suspended') =>
      accountEvent(EventType.DeveloperStatusChanged, { event_id: eventId, developer_id: dev, status: value, reason: null, changed_at: T });
    await apply(at(0, registered, status('e1', 'suspended')));
    await apply(at(2, status('e2', 'active')));
    const before = await accountsChecksum(t.runtime.db);
    await apply(at(0, registered, status('e1', 'suspended')));
    await apply(at(1, status('e1', 'suspended')));
    expect(await one('SELECT status, last_offset, last_event_id FROM account_developers WHERE developer_id = $1', [dev])).toEqual({
      status: 'active', last_offset: '2', last_event_id: 'e2',
    });
    expect(await accountsChecksum(t.runtime.db)).toEqual(before);
  });

  it('the first revocation counts, and a second issue of the same sandbox key is dropped without error', async () => {
    const secret = 's'.repeat(32);
    const issue = (keyId: string) =>
      accountEvent(EventType.ApiKeyIssued, {
        event_id: `issue-${keyId}`, key_id: keyId, kind: 'sandbox', key_hash: hashApiKey(secret, sandboxKey(secret, 0)),
        display_prefix: 'svc_sandbox_abcdef', application_id: null, label: null, issued_at: T,
      });
    const revoke = (eventId: string, reason: string) =>
      accountEvent(EventType.ApiKeyRevoked, { event_id: eventId, key_id: 'k1', application_id: null, reason, revoked_at: T });
    await apply(at(10, issue('k1'), issue('k2')));
    await apply(at(12, issue('k3'), revoke('r1', 'first')));
    await apply(at(14, revoke('r2', 'second')));
    const { rows } = await t.runtime.db.query('SELECT key_id, revocation_reason FROM account_api_keys ORDER BY key_id');
    expect(rows).toEqual([{ key_id: 'k1', revocation_reason: 'first' }]);
  });

  it('the latest designation stays the default even if an older one is applied again', async () => {
    const designate = (placement: string) =>
      accountEvent(EventType.DefaultPlacementDesignated, { event_id: `d-${placement}`, placement_id: placement, application_id: app, designated_at: T });
    await apply(at(20, designate('p1')));
    await apply(at(21, designate('p2')));
    await apply(at(20, designate('p1')));
    expect(await one('SELECT placement_id FROM account_default_placement', [])).toEqual({ placement_id: 'p2' });
  });
});
