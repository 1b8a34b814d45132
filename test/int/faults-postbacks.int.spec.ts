import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { verifyLedger } from '../../projections/ledger/verify.js';
import type { PostbackReceived } from '../../schemas/generated/events.js';
import { startFaultStack, withRuntime, type FaultStack } from '../support/fault-stack.js';
import { faultSteps, redisOutage } from '../support/fault-steps.js';
import { startLoad, type Load, type Operation } from '../support/load.js';
import { PROTOCOL, postbackWorld } from '../support/postback-world.js';
import { readTopic } from '../support/read-topic.js';
import { running, type ApiProcess, type Restartable } from '../support/service-processes.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The postback ledger under faults: the API and a separate projector on a private Kafka broker
 * and a private Redis, partners posting distinct postbacks and retrying each one (the same body,
 * the same identity) on a 503 or a lost connection, and during it an API SIGKILL, a projector
 * SIGKILL, a broker restart, every Postgres session dropped and a Redis outage. Afterwards every
 * postback that got a 2xx is in the ledger exactly once under the correlation id it was answered
 * with, every logged postback was decided once, and the hash chains verify.
 *
 * Every wait below is on a condition (a process ready, more postbacks acknowledged, more attempts
 * failed, a readiness answer naming Redis); none is a pause for time to pass.
 */
let stack: FaultStack | undefined;
let api: Restartable<ApiProcess> | undefined;
let partner: string;
let cards: string[];

const CLIENTS = 6;

beforeAll(async () => {
  stack = await startFaultStack();
  // The admin commands and the serves wait for the projector process to apply their events.
  ({ partner, cards } = await withRuntime(stack.env, async (runtime) => {
    const world = await postbackWorld(runtime);
    const served = await Promise.all(Array.from({ length: CLIENTS }, () => world.serve(world.cpaOffer)));
    return { partner: world.partner, cards: served.map((card) => card.offer_instance_id) };
  }));
  api = await stack.startApi();
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

interface Answer {
  data: { result?: string; correlation_id?: string };
  extra?: { reason?: string; retryable?: boolean; correlation_id?: string; event_logged?: boolean };
}

const eventIdOf = (index: number) => `fault-${index}`;

describe('postbacks under faults', () => {
  it('every postback acknowledged through an API crash, a projector crash, a broker restart, dropped sessions and a Redis outage is in the ledger once, and the chains verify', async () => {
    const { kafka, redis, database, projector, env } = stack!;
    const url = api!.current.url;
    const load: Load = startLoad({
      clients: CLIENTS,
      request: (index) => ({
        url: `${url}/v1/postback/${partner}`,
        init: { method: 'POST', headers: PROTOCOL, body: JSON.stringify({ event_name: 'purchase', offer_instance_id: cards[index % CLIENTS], event_id: eventIdOf(index) }) },
      }),
      // A partner retries what the service says to retry and what got no answer; a 500 would be
      // retried too, and is counted below as the bug it would be.
      retryable: (status) => status >= 500,
    });
    const { fault, felt } = faultSteps(load, () => ({ API: api!.current, projector: projector.current }), 20);

    // Warm: postbacks are acknowledged before anything breaks.
    await load.moreSucceeded(20);
    const firstApi = api!.current.child.pid;

    await fault('api SIGKILL', async () => {
      await api!.kill('SIGKILL');
      // Partners notice (refused connections) before it is back.
      await load.moreFailed(1);
      await api!.start();
    });
    const firstProjector = projector.current.child.pid;
    await fault('projector SIGKILL', async () => {
      await projector.kill('SIGKILL');
      // Postbacks logged while no projector decides are deferred (503); their retries come after.
      await load.moreFailed(CLIENTS);
      await projector.start();
    });
    await fault('kafka restart', async () => {
      await kafka.stop();
      // Partners notice (a retryable 503: nothing is acknowledged that the log does not hold) before it is back.
      await load.moreFailed(1);
      await kafka.start();
    });
    await fault('postgres sessions dropped', async () => {
      expect(await database.dropConnections()).toBeGreaterThan(0);
    });
    // Postbacks do not need Redis: they go on while it is down.
    await fault('redis outage', () => redisOutage(redis, url, load, 20));
    // The API died only when killed, and the projector's successor survived everything after it.
    expect(api!.current.child.pid).not.toBe(firstApi);
    expect(running(api!.current)).toBe(true);
    expect(projector.current.child.pid).not.toBe(firstProjector);
    expect(running(projector.current)).toBe(true);

    const operations = await load.stop();
    // Every postback ended in a 2xx: no partner gave up and none was refused.
    expect(operations.filter((op) => op.gaveUp || op.status !== 200).map(summary)).toEqual([]);
    // The only failures partners saw were retryable 503s (or no answer): never a 500, never a 503 saying "do not retry".
    const failures = operations.flatMap((op) => op.attempts.filter((attempt) => attempt.status !== undefined && attempt.status !== 200).map((attempt) => ({ index: op.index, ...attempt })));
    expect(failures.filter((attempt) => attempt.status !== 503 || (attempt.body as Answer).extra?.retryable !== true)).toEqual([]);
    const reasons = new Set(failures.map((attempt) => (attempt.body as Answer).extra?.reason));
    expect([...reasons].filter((reason) => reason !== 'postback_v10_unavailable' && reason !== 'postback_intake_unavailable')).toEqual([]);
    // Each 503 in the reference's envelope: nothing logged when the log could not take it, logged when only the decision was late.
    const envelopeOf = (reason: string | undefined) =>
      reason === 'postback_v10_unavailable'
        ? { code: 'POSTBACK_V10_UNAVAILABLE', message: reason, data: {}, extra: { result: 'unavailable', reason, correlation_id: expect.any(String), retryable: true, event_logged: false } }
        : { code: 'POSTBACK_INTAKE_UNAVAILABLE', message: reason, data: {}, extra: { result: 'deferred', reason, correlation_id: expect.any(String), retryable: true, event_logged: true } };
    for (const attempt of failures) expect(attempt.body).toEqual(envelopeOf((attempt.body as Answer).extra?.reason));

    const answers = new Map(operations.map((op) => [eventIdOf(op.index), (op.body as Answer).data]));
    const results = [...answers.values()].map((answer) => answer.result);
    expect(results.filter((result) => result !== 'accepted' && result !== 'already_recorded')).toEqual([]);
    // The crashes left postbacks logged but unanswered, and their retries were told so.
    expect(results).toContain('already_recorded');
    // already_recorded can only answer a retry whose earlier attempt was logged.
    expect(operations.filter((op) => (op.body as Answer).data.result === 'already_recorded' && op.attempts.length === 1).map(summary)).toEqual([]);
    const acceptedIds = [...answers.values()].filter((answer) => answer.result === 'accepted').map((answer) => answer.correlation_id);
    expect(new Set(acceptedIds).size).toBe(acceptedIds.length);

    await withRuntime(env, async (runtime) => {
      // The projector has decided everything the log holds.
      await awaitCaughtUp(runtime, [ledgerProjection], 60_000);

      // Exactly the acknowledged postbacks are in the ledger, each once, under the correlation id
      // it was answered with (accepted: its own; already_recorded: the original's).
      const { rows: ledger } = await runtime.db.query<{ event_id: string; correlation_id: string }>(
        'SELECT event_id, correlation_id FROM conversions WHERE partner_id = $1 ORDER BY event_id',
        [partner],
      );
      const seen = new Set<string>();
      expect(ledger.filter((row) => seen.has(row.event_id) || !seen.add(row.event_id))).toEqual([]);
      expect(ledger.length).toBe(answers.size);
      expect(ledger.filter((row) => answers.get(row.event_id)?.correlation_id !== row.correlation_id)).toEqual([]);

      // Every logged postback (deferred and unanswered attempts included) was decided exactly once.
      const ends = await runtime.eventLog.endOffsets('postbacks');
      const total = ends.reduce((sum, end) => sum + Number(end.offset), 0);
      const logged = await readTopic(runtime.eventLog, 'postbacks', (events) => events.length >= total);
      const loggedIds = logged.map((event) => (event.value as unknown as PostbackReceived).correlation_id);
      expect(new Set(loggedIds).size).toBe(loggedIds.length);
      const { rows: decisions } = await runtime.db.query<{ correlation_id: string }>('SELECT correlation_id FROM postback_log');
      expect(decisions.length).toBe(total);
      expect(decisions.map((row) => row.correlation_id).sort()).toEqual(loggedIds.sort());
      // More was logged than acknowledged: the retries of unanswered postbacks.
      expect(total).toBeGreaterThan(answers.size);

      const report = await verifyLedger(runtime.db);
      expect(report.breaks).toEqual([]);
      expect(report.conversionsOffChain).toEqual([]);
      expect(report.partitions.reduce((sum, partition) => sum + partition.decisions, 0)).toBe(total);
      process.stderr.write(`[faults-postbacks] ${operations.length} postbacks acknowledged, ${total} logged; per fault until recovered: ${JSON.stringify(felt)}\n`);
    });
  }, 300_000);
});

describe('postbacks while the broker is down', () => {
  it('answers 503 postback_v10_unavailable, retryable, event_logged false and logs nothing; once the broker is back the same postback is recorded once', async () => {
    const { kafka, env } = stack!;
    const post = async () => {
      const response = await fetch(`${api!.current.url}/v1/postback/${partner}`, {
        method: 'POST',
        headers: PROTOCOL,
        body: JSON.stringify({ event_name: 'purchase', offer_instance_id: cards[0], event_id: 'broker-down' }),
      });
      return { status: response.status, body: (await response.json()) as Answer & Record<string, unknown> };
    };
    const unavailable = (reason: string, eventLogged: boolean) => ({
      status: 503,
      body: { code: reason.toUpperCase(), message: reason, data: {}, extra: { result: eventLogged ? 'deferred' : 'unavailable', reason, correlation_id: expect.any(String), retryable: true, event_logged: eventLogged } },
    });
    await kafka.stop();
    const askedAt = performance.now();
    const down = await post();
    process.stderr.write(`[faults-postbacks] with the broker down, answered ${down.status} in ${Math.round(performance.now() - askedAt)} ms\n`);
    expect(down).toEqual(unavailable('postback_v10_unavailable', false));
    await kafka.start();
    // The partner's retries until one is answered 2xx; each one before it a retryable 503.
    const retries: Awaited<ReturnType<typeof post>>[] = [];
    const back = await waitFor(async () => {
      const answer = await post();
      if (answer.status === 200) return answer;
      retries.push(answer);
      return undefined;
    }, { timeoutMs: 120_000, intervalMs: 500, what: 'the postback to be taken again' });
    for (const retry of retries) {
      const { reason, event_logged } = retry.body.extra as { reason: string; event_logged: boolean };
      expect(retry).toEqual(unavailable(reason, event_logged));
    }
    await withRuntime(env, async (runtime) => {
      await awaitCaughtUp(runtime, [ledgerProjection], 60_000);
      const { rows } = await runtime.db.query<{ correlation_id: string; decision: string }>(
        'SELECT correlation_id, decision FROM postback_log WHERE partner_id = $1 AND event_id = $2 ORDER BY log_offset',
        [partner, 'broker-down'],
      );
      // The refused attempt never reached the log; the first logged copy is the one recorded, and the answer names it.
      expect(rows.map((row) => row.correlation_id)).not.toContain(down.body.extra!.correlation_id);
      expect(rows.map((row) => row.decision)).toEqual(['accepted', ...rows.slice(1).map(() => 'already_recorded')]);
      expect(back.body.data).toMatchObject({ result: rows.length === 1 ? 'accepted' : 'already_recorded', correlation_id: rows[0]!.correlation_id });
    });
  }, 300_000);
});

function summary(op: Operation) {
  return { index: op.index, status: op.status, gaveUp: op.gaveUp, attempts: op.attempts.map((attempt) => attempt.status ?? attempt.error), body: op.body };
}
