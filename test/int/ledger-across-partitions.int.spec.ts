import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackReceivedEvent } from '../../commands/postbacks/receive.js';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { tableChecksum } from '../../platform/projection/checksum.js';
import { applyBatch, applyBatches } from '../../platform/projection/runner.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { findDecisions } from '../../projections/ledger/queries.js';
import { verifyLedger } from '../../projections/ledger/verify.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { postbackLogKey } from '../../commands/postbacks/log-key.js';

const PARTNER = '0192f3a0-0000-7000-8000-00000000f001';

/** A PostbackReceived as the intake appends it; `amount` changes the payload (and so the fingerprint). */
function received(eventId: string, options: { amount?: string; goal?: string | null } = {}) {
  return postbackReceivedEvent(
    {
      partner_id: PARTNER, source_ip: '127.0.0.1', channel: 'current', correlation_id: uuidv7(),
      fields: { event_name: 'purchase', event_id: eventId, ...(options.amount ? { amount: options.amount, currency: 'USD' } : {}) },
    },
    { matched_by: 'offer_instance_id', offer_id: 'offer', offer_instance_id: 'instance', svc_click_id: null, application_id: 'app', environment: 'live' },
    options.goal === null ? { goal_event: null, payout_amount: null, payout_currency: null } : { goal_event: 'install', payout_amount: '2.50', payout_currency: 'USD' },
    new Date('2026-11-27T08:00:00Z'),
  );
}

const batchOf = (partition: number, values: ReturnType<typeof received>[], from = 0) => ({
  topic: 'postbacks',
  partition,
  events: values.map((value, index): LoggedEvent => ({
    topic: 'postbacks', partition, offset: String(from + index), key: postbackLogKey(value),
    type: EventType.PostbackReceived, value: { ...value }, schemaId: 1, timestamp: new Date(0),
  })),
});

describe('the ledger applied across partitions (one transaction per fetch)', () => {
  let together: TestDatabase;
  let apart: TestDatabase;
  beforeAll(async () => {
    [together, apart] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  });
  afterAll(async () => Promise.all([together?.drop(), apart?.drop()]));

  it('decides, chains and records exactly as applying each partition on its own', async () => {
    // Partition 0: a conversion, its copy and a changed copy; partition 4: two conversions, one unmapped.
    const first = received('a-1', { amount: '10.00' });
    const fetches = [
      [batchOf(0, [first, { ...received('a-1', { amount: '10.00' }) }, received('a-1', { amount: '11.00' })]), batchOf(4, [received('b-1'), received('b-2', { goal: null })])],
      // The next fetch goes on both chains and sees the first fetch's conversions.
      [batchOf(4, [received('b-1'), received('b-3')], 2), batchOf(0, [received('a-2')], 3)],
    ];
    for (const fetch of fetches) {
      expect(await applyBatches(together.db, ledgerProjection, fetch)).toEqual(fetch.map((batch) => batch.events.length));
      for (const batch of fetch) await applyBatch(apart.db, ledgerProjection, batch);
    }
    for (const table of ledgerProjection.tables) {
      expect(await tableChecksum(together.db, table), table).toEqual(await tableChecksum(apart.db, table));
    }
    const ids = fetches.flat().flatMap((batch) => batch.events.map((event) => (event.value as { correlation_id: string }).correlation_id));
    const decisions = await findDecisions(together.db, ids);
    expect(ids.map((id) => decisions.get(id)?.decision)).toEqual([
      'accepted', 'already_recorded', 'identity_conflict', 'accepted', 'unmapped',
      'already_recorded', 'accepted', 'accepted',
    ]);
    const report = await verifyLedger(together.db);
    expect(report.breaks).toEqual([]);
    expect(report.partitions.map(({ partition, decisions: count }) => ({ partition, count }))).toEqual([{ partition: 0, count: 4 }, { partition: 4, count: 4 }]);
  });
});

describe('copies in the log: a postback logged twice (a copy of the log made into it, a replayed topic), an identity in two partitions (partitions added to the topic)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  it('is decided once, in the batch and in a later one, and the ledger goes on past its copies', async () => {
    const first = received('c-1', { amount: '10.00' });
    const retry = received('c-1', { amount: '10.00' });
    const next = received('c-2');
    // The copies carry the same correlation id: the same request, logged again at later offsets.
    await applyBatch(database.db, ledgerProjection, batchOf(0, [first, { ...first }, retry]));
    await applyBatch(database.db, ledgerProjection, batchOf(0, [{ ...first }, { ...retry }, next], 3));
    const { rows } = await database.db.query<{ correlation_id: string; decision: string; log_offset: string }>('SELECT correlation_id, decision, log_offset::text FROM postback_log ORDER BY log_offset');
    expect(rows).toEqual([
      { correlation_id: first.correlation_id, decision: 'accepted', log_offset: '0' },
      { correlation_id: retry.correlation_id, decision: 'already_recorded', log_offset: '2' },
      { correlation_id: next.correlation_id, decision: 'accepted', log_offset: '5' },
    ]);
    const { rows: conversions } = await database.db.query<{ correlation_id: string }>('SELECT correlation_id FROM conversions ORDER BY correlation_id');
    expect(conversions.map((row) => row.correlation_id).sort()).toEqual([first.correlation_id, next.correlation_id].sort());
    expect((await verifyLedger(database.db)).breaks).toEqual([]);
  });

  it('is recorded once when both copies come in one fetch, and the ledger goes on', async () => {
    const first = received('d-1', { amount: '10.00' });
    const retry = received('d-1', { amount: '10.00' });
    const changed = received('d-1', { amount: '12.00' });
    // Inserted twice, the conversion's key would fail the whole fetch on every retry.
    await applyBatches(database.db, ledgerProjection, [batchOf(1, [first]), batchOf(5, [retry, changed])]);
    const decisions = await findDecisions(database.db, [first.correlation_id, retry.correlation_id, changed.correlation_id]);
    expect([first, retry, changed].map((value) => decisions.get(value.correlation_id)?.decision)).toEqual(['accepted', 'already_recorded', 'identity_conflict']);
    const { rows } = await database.db.query<{ correlation_id: string }>('SELECT correlation_id FROM conversions WHERE correlation_id = ANY($1::text[])', [[first, retry, changed].map((value) => value.correlation_id)]);
    expect(rows.map((row) => row.correlation_id)).toEqual([first.correlation_id]);
    expect((await verifyLedger(database.db)).breaks).toEqual([]);
  });
});
