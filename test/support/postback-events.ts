import { createHash } from 'node:crypto';
import { newEvent } from '../../commands/append.js';
import type { NewEvent } from '../../platform/events/event-log.js';
import { EventType, type PostbackReceived } from '../../schemas/generated/events.js';
import { postbackLogKey } from '../../commands/postbacks/log-key.js';

const PARTNERS = ['0b7f3c1e-6a51-4c4e-9d0a-1f2e3d4c5b6a', '5d2a9e47-1c3b-4f8e-a6d7-9b0c1d2e3f4a', 'c4e8f1a2-7b3d-4a5c-8e9f-0a1b2c3d4e5f'];
const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * `count` logged postbacks as the intake writes them, deterministic and varied: every optional
 * field both null and set, text with quotes, commas, newlines and non-ASCII, every enum value,
 * unmapped ones (no goal), and repeats of an identity with the same fingerprint (already
 * recorded) or another (a conflict) so the ledger makes every kind of decision.
 */
export function postbackEvents(count: number, epoch = Date.UTC(2026, 10, 1)): NewEvent[] {
  const events: NewEvent[] = [];
  for (let index = 0; index < count; index += 1) {
    const partner = PARTNERS[index % PARTNERS.length]!;
    // Every seventh repeats the identity two events back (same partner); every fourteenth with another payload.
    const identityIndex = index % 7 === 6 ? index - 3 : index;
    const kind = (['event_id', 'order_id', 'partner_txn_id'] as const)[identityIndex % 3]!;
    const identityValue = `id-${identityIndex}`;
    const repeatChanged = index % 14 === 6;
    const mapped = index % 11 !== 3;
    const value: PostbackReceived = {
      correlation_id: `01a20000-0000-7000-8000-${String(index).padStart(12, '0')}`,
      partner_id: partner,
      identity_kind: kind,
      identity_key: JSON.stringify(kind === 'order_id' ? ['purchase', identityValue] : [identityValue]),
      fingerprint: hex(`${identityIndex}${repeatChanged ? '-changed' : ''}`),
      channel: (['current', 'compat_get', 'compat_form'] as const)[index % 3]!,
      source_ip: index % 2 === 0 ? '203.0.113.7' : '2001:db8::42',
      received_at: epoch + index * 1_000,
      event_name: index % 5 === 0 ? 'purchase, "big" — ünïcode\nsecond line' : 'purchase',
      event_id: kind === 'event_id' ? identityValue : null,
      order_id: kind === 'order_id' ? identityValue : null,
      partner_txn_id: kind === 'partner_txn_id' ? identityValue : index % 4 === 0 ? '' : null,
      amount: index % 3 === 0 ? null : `${index}.${index % 100}`.replace(/\.0$/, ''),
      currency: index % 3 === 0 ? null : 'USD',
      reported_click_id: index % 2 === 0 ? `click-${index}` : null,
      reported_tracking_id: index % 3 === 1 ? `st_${index}` : null,
      reported_instance_id: null,
      matched_by: (['svc_click_id', 'svc_tracking_id', 'offer_instance_id'] as const)[index % 3]!,
      offer_id: `offer-${index % 13}`,
      offer_instance_id: index % 6 === 0 ? null : `instance-${index}`,
      svc_click_id: index % 2 === 0 ? `click-${index}` : null,
      application_id: index % 4 === 1 ? null : `app-${index % 5}`,
      environment: (['live', 'test', 'sandbox'] as const)[index % 3]!,
      goal_event: mapped ? 'purchase' : null,
      payout_amount: mapped ? `${(index % 50) + 1}.25` : null,
      payout_currency: mapped ? 'EUR' : null,
    };
    events.push(newEvent(EventType.PostbackReceived, postbackLogKey(value), value));
  }
  return events;
}
