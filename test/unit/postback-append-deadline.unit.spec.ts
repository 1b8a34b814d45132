import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostbackRejection } from '../../commands/postbacks/rejections.js';
import { receivePostback, type PostbackReads } from '../../commands/postbacks/receive.js';
import type { EventLog } from '../../platform/events/event-log.js';
import { createMetrics } from '../../platform/metrics/metrics.js';
import type { Runtime } from '../../platform/runtime.js';
import { DETAILS } from '../support/instance-world.js';

/**
 * A postback whose append the log never answers (too few brokers in sync, a broker that stopped
 * answering) is refused as not logged once its deadline passes, rather than held for as long as
 * the Kafka client retries. The reads are fakes (a known card of a known partner's offer); only
 * the append is under test, so a log that hangs is a promise that never settles.
 */
describe('a postback whose append does not answer', () => {
  afterEach(() => vi.useRealTimers());

  it('is refused with a retryable postback_v10_unavailable after 5 s, event not known to be logged', async () => {
    const partnerId = randomUUID();
    const offerId = randomUUID();
    const instanceId = randomUUID();
    const reads: PostbackReads = {
      partner: async () => ({ partner_id: partnerId, name: 'p', enabled: true, configured_at: new Date(), source_ip_allowlist: ['127.0.0.1/32'], goal_mappings: { purchase: 'install' } }),
      offer: async () => ({ offer_id: offerId, partner_id: partnerId, kind: 'local', status: 'active', deleted: false, delisted: false, test_only: false, updated_at: new Date(), details: DETAILS as never }),
      decision: async () => undefined,
      click: async () => undefined,
      servedInstance: async () => ({ offer_instance_id: instanceId, offer_id: offerId, application_id: randomUUID(), environment: 'live' }) as never,
    };
    let appendsAsked = 0;
    const hangingLog = { kind: 'kafka', append: () => ((appendsAsked += 1), new Promise(() => {})) } as unknown as EventLog;
    const runtime = { eventLog: hangingLog, db: {}, metrics: createMetrics() } as unknown as Runtime;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const answer = receivePostback(
      runtime,
      { partner_id: partnerId, source_ip: '127.0.0.1', channel: 'current' as never, correlation_id: randomUUID(), fields: { event_name: 'purchase', offer_instance_id: instanceId, order_id: 'o-1' } },
      { now: new Date(), decisionTimeoutMs: 5_000, reads },
    );
    const settled = answer.then(() => 'answered', (error: unknown) => error);
    await vi.advanceTimersByTimeAsync(4_900);
    expect(appendsAsked).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    const refusal = await settled;
    expect(refusal).toBeInstanceOf(PostbackRejection);
    expect(refusal).toMatchObject({ reason: 'postback_v10_unavailable', eventLogged: false, message: 'the postback could not be logged; retry with backoff' });
  });
});
