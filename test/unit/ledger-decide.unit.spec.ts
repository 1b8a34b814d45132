import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { GENESIS_HASH } from '../../projections/ledger/chain.js';
import { decideBatch } from '../../projections/ledger/decide.js';
import { EventType, type PostbackReceived } from '../../schemas/generated/events.js';

const PARTNER = '01a20000-0000-7000-8000-000000000001';
const OTHER_PARTNER = '01a20000-0000-7000-8000-000000000002';

/** A logged PostbackReceived of `partner` reporting event_id `eventId`, at `offset` of partition 0. */
function received(offset: number, partner: string, eventId: string, correlationId: string): LoggedEvent {
  const value: PostbackReceived = {
    correlation_id: correlationId,
    partner_id: partner,
    identity_kind: 'event_id',
    identity_key: JSON.stringify(['event_id', eventId]),
    fingerprint: 'f'.repeat(64),
    channel: 'current',
    source_ip: '127.0.0.1',
    received_at: 0,
    event_name: 'purchase',
    event_id: eventId,
    order_id: null,
    partner_txn_id: null,
    amount: null,
    currency: null,
    reported_click_id: null,
    reported_tracking_id: null,
    reported_instance_id: '01a20000-0000-7000-8000-0000000000aa',
    matched_by: 'offer_instance_id',
    offer_id: '01a20000-0000-7000-8000-0000000000bb',
    offer_instance_id: '01a20000-0000-7000-8000-0000000000aa',
    svc_click_id: null,
    application_id: null,
    environment: 'live',
    goal_event: 'install',
    payout_amount: '12.50',
    payout_currency: 'USD',
  };
  return { topic: 'postbacks', partition: 0, offset: String(offset), key: `${partner}:${eventId}`, type: EventType.PostbackReceived, value: value as unknown as Record<string, unknown>, schemaId: 1, timestamp: new Date(0) };
}

describe('decideBatch', () => {
  it("takes an identity as the partner's own: the same event_id from two partners in one batch is two conversions", () => {
    const events = [received(0, PARTNER, 'e-1', 'c-1'), received(1, OTHER_PARTNER, 'e-1', 'c-2'), received(2, PARTNER, 'e-1', 'c-3')];
    const { log, conversions } = decideBatch(events, new Map(), GENESIS_HASH);
    expect(log.map((row) => [row.correlation_id, row.decision, row.original_correlation_id])).toEqual([
      ['c-1', 'accepted', 'c-1'],
      ['c-2', 'accepted', 'c-2'],
      ['c-3', 'already_recorded', 'c-1'],
    ]);
    expect(conversions.map((row) => row.correlation_id)).toEqual(['c-1', 'c-2']);
  });
});
