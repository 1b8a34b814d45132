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
      remoteGoals: async () => [],
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
    expect(refusal).toMatchObject({ reason: 'postback_v10_unavailable', eventLogged: false, message: 'the log did not confirm the postback in time; it may still be recorded, so retry with backoff, the same identity and the same payload' });
  });
});

/**
 * Stalls in several steps (a Postgres whose sessions hang slows the reads, then the decision
 * does not come) do not add up past the decision wait plus 3 s: each step gets what is left.
 */
describe('a postback whose steps each stall', () => {
  afterEach(() => vi.useRealTimers());

  const world = (options: { readsTakeMs: number; appendHangs: boolean }) => {
    const partnerId = randomUUID();
    const offerId = randomUUID();
    const instanceId = randomUUID();
    const slowly = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), options.readsTakeMs));
    const reads: PostbackReads = {
      partner: () => slowly({ partner_id: partnerId, name: 'p', enabled: true, configured_at: new Date(), source_ip_allowlist: ['127.0.0.1/32'], goal_mappings: { purchase: 'install' } }),
      offer: async () => ({ offer_id: offerId, partner_id: partnerId, kind: 'local', status: 'active', deleted: false, delisted: false, test_only: false, updated_at: new Date(), details: DETAILS as never }),
      remoteGoals: async () => [],
      decision: async () => undefined,
      click: async () => undefined,
      servedInstance: async () => ({ offer_instance_id: instanceId, offer_id: offerId, application_id: randomUUID(), environment: 'live' }) as never,
    };
    const log = {
      kind: 'kafka',
      append: () => (options.appendHangs ? new Promise(() => {}) : Promise.resolve([{ topic: 'postbacks', partition: 0, offset: '7' }])),
    } as unknown as EventLog;
    // The ledger never decides: the wait ends at its timeout.
    const watermarks = { awaitApplied: (_projection: string, _events: unknown, timeoutMs: number) => new Promise((resolve) => setTimeout(() => resolve(false), timeoutMs)) };
    const runtime = { eventLog: log, db: {}, metrics: createMetrics(), watermarks: async () => watermarks } as unknown as Runtime;
    return receivePostback(
      runtime,
      { partner_id: partnerId, source_ip: '127.0.0.1', channel: 'current' as never, correlation_id: randomUUID(), fields: { event_name: 'purchase', offer_instance_id: instanceId, order_id: 'o-1' } },
      { now: new Date(), decisionTimeoutMs: 5_000, reads },
    ).then(() => 'answered', (error: unknown) => error);
  };

  /** The answer of a postback whose reads take 4.5 s: none after 7.9 s, then what came by 8.5 s. */
  const answerBy8s = async (appendHangs: boolean) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let refusal: unknown;
    void world({ readsTakeMs: 4_500, appendHangs }).then((answer) => (refusal = answer));
    await vi.advanceTimersByTimeAsync(7_900);
    expect(refusal).toBeUndefined();
    await vi.advanceTimersByTimeAsync(600);
    return refusal;
  };

  it('slow reads, then an append that hangs: refused not logged at 8 s, not at 9.5 s', async () => {
    const refusal = await answerBy8s(true);
    expect(refusal).toBeInstanceOf(PostbackRejection);
    expect(refusal).toMatchObject({ reason: 'postback_v10_unavailable', eventLogged: false });
  });

  it('slow reads, then a decision that does not come: logged, deferred at 8 s, not at 9.5 s', async () => {
    expect(await answerBy8s(false)).toMatchObject({ reason: 'postback_intake_unavailable', eventLogged: true });
  });
});
