import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { startFaultStack, withRuntime, type FaultStack } from '../support/fault-stack.js';
import { faultSteps, redisOutage } from '../support/fault-steps.js';
import { startLoad, type Load } from '../support/load.js';
import { readTopic } from '../support/read-topic.js';
import { details, servingAdmin } from '../support/serving-fixtures.js';
import { running, type ApiProcess, type Restartable } from '../support/service-processes.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Serving under faults: the API and a separate projector on a private Kafka broker and a private
 * Redis, a steady Query load whose clients retry, and during it a broker restart, a projector
 * SIGKILL, every Postgres session dropped, a Redis outage and an API SIGKILL. Afterwards every
 * card a client was given (a 2xx) is in served_instances and found by the instance route, the
 * log holds each instance id once, and the read model holds exactly what the log holds. While the
 * projector is down, Query still serves and a fresh card's lookup is a retryable 503.
 *
 * Every wait below is on a condition: a process that answers or logs it is ready, the load having
 * completed more operations (the service serves again), a readiness answer naming Redis. None is
 * a pause for time to pass.
 */
const isQueryUnavailable = (body: unknown) => {
  const envelope = body as { code?: unknown; message?: unknown; data?: unknown; extra?: unknown } | undefined;
  return envelope?.code === 'QUERY_UNAVAILABLE' && typeof envelope.message === 'string' && JSON.stringify(envelope.data) === '{}' && JSON.stringify(envelope.extra) === '{}';
};
let stack: FaultStack | undefined;

async function postJson(url: string, body: unknown) {
  const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as unknown };
}
/**
 * `send` again while it answers the retryable 503 `isRetryable` recognises, as a client would;
 * any other refusal fails at once.
 */
async function retriedUntilOk(send: () => Promise<{ status: number; body: unknown }>, isRetryable: (body: unknown) => boolean, what: string) {
  let refused: Error | undefined;
  return waitFor(
    async () => {
      const answer = await send();
      if (answer.status === 200) return answer;
      if (answer.status !== 503 || !isRetryable(answer.body)) refused = new Error(`${what}: answered ${answer.status} ${JSON.stringify(answer.body)}`);
      return undefined;
    },
    { timeoutMs: 30_000, what, abandon: () => refused },
  );
}
/** POST /v1/offers/instances with the load's key. */
const lookUp = (base: string, ids: string[]) => postJson(`${base}/v1/offers/instances`, { offer_instance_ids: ids });
let api: Restartable<ApiProcess> | undefined;
let key: string;
let placement: string;

beforeAll(async () => {
  stack = await startFaultStack();
  // The admin commands wait for the projector process to apply their events.
  ({ key, placement } = await withRuntime(stack.env, async (runtime) => {
    const admin = servingAdmin(runtime);
    const application = await admin.application(await admin.developer());
    const issued = await admin.key(application);
    const partner = await admin.partner();
    for (const category of ['games', 'books']) {
      await admin.offer({ partner_id: partner, details: details(category), destination_url: `https://merchant.example/${category}` });
    }
    return { key: issued.key, placement: await admin.placement(application) };
  }));
  api = await stack.startApi();
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

describe('serving under faults', () => {
  it('every card given out through a broker restart, a projector crash, dropped sessions, a Redis outage and an API crash is in the log and the read model once', async () => {
    const { kafka, redis, database, projector, env } = stack!;
    const url = api!.current.url;
    const load: Load = startLoad({
      clients: 4,
      request: () => ({
        url: `${url}/v1/offers/query`,
        init: {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ placement_id: placement, limit: 2 }),
        },
      }),
    });
    const { fault, felt } = faultSteps(load, () => ({ API: api!.current, projector: projector.current }));

    // Warm: the service serves before anything breaks.
    await load.moreSucceeded(10);
    const firstProjector = projector.current.child.pid;
    const firstApi = api!.current.child.pid;
    const firstApiProcess = api!.current;
    /** What the API processes logged at error level, to say why a client gave up. */
    const apiErrors = () =>
      [firstApiProcess, api!.current]
        .flatMap((process) => process.output().split('\n'))
        .filter((line) => line.includes('"level":50'))
        .slice(-10)
        .join('\n');

    await fault('kafka restart', async () => {
      // A card's link, opened once while the log answers (so its serve is applied), then again without it.
      const served = await retriedUntilOk(() => postJson(`${url}/v1/offers/query`, { placement_id: placement, limit: 1 }), isQueryUnavailable, 'Query to serve a card to click');
      const link = new URL((served.body as { data: { cards: { action: { payload: { url: string } } }[] } }).data.cards[0]!.action.payload.url);
      const click = async () => {
        const answer = await fetch(`${url}${link.pathname}`, { redirect: 'manual' });
        return { status: answer.status === 302 ? 200 : answer.status, body: answer.status === 302 ? answer.headers.get('location') : ((await answer.json()) as unknown) };
      };
      const isLinkUnavailable = (body: unknown) => (body as { code?: unknown } | null)?.code === 'LINK_UNAVAILABLE';
      await retriedUntilOk(click, isLinkUnavailable, 'the card\'s link to open');
      await kafka.stop();
      // A click is logged before its redirect: with the log unreachable, no redirect, a retryable 503.
      const unlogged = await click();
      expect(unlogged.status).toBe(503);
      expect(isLinkUnavailable(unlogged.body)).toBe(true);
      // While the log is unreachable, Query answers its retryable 503 naming the log: within its own
      // budget, or sooner when the Kafka client gives up first (its retries take about as long).
      const refused = await fetch(`${url}/v1/offers/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ placement_id: placement, limit: 1 }),
      });
      const body = await refused.json();
      expect(refused.status).toBe(503);
      expect(isQueryUnavailable(body)).toBe(true);
      expect(body.message).toMatch(/^the served cards could not be logged( within 3 s)?; retry$/);
      await kafka.start();
      const reopened = await retriedUntilOk(click, isLinkUnavailable, 'the card\'s link to open again after the restart');
      expect(reopened.body).toMatch(/^https:\/\/merchant\.example\//);
    });
    await fault('projector SIGKILL', async () => {
      await projector.kill('SIGKILL');
      // Query still serves (its cards are logged); the instance route cannot find a card it has
      // not seen applied, and says "retry", never not_found.
      // Retried like a client: an append may still fail for a moment after the broker restart.
      const served = await retriedUntilOk(() => postJson(`${url}/v1/offers/query`, { placement_id: placement, limit: 1 }), isQueryUnavailable, 'Query to serve with the projector down');
      const card = (served.body as { data: { cards: { offer_instance_id: string }[] } }).data.cards[0]!;
      const early = await lookUp(url, [card.offer_instance_id]);
      expect(early.status).toBe(503);
      expect(early.body).toMatchObject({ code: 'OFFER_INSTANCE_UNAVAILABLE' });
      await projector.start();
      // The new projector may take a moment to be given the partitions: retried like a client.
      const isLookupUnavailable = (body: unknown) => (body as { code?: unknown } | undefined)?.code === 'OFFER_INSTANCE_UNAVAILABLE';
      const late = await retriedUntilOk(() => lookUp(url, [card.offer_instance_id]), isLookupUnavailable, 'the card to be found once a projector is back');
      expect(late.body).toMatchObject({ data: { instances: [{ offer_instance_id: card.offer_instance_id, status: 'found' }] } });
    });
    await fault('postgres sessions dropped', async () => {
      expect(await database.dropConnections()).toBeGreaterThan(0);
    });
    // Query does not need Redis: it serves while Redis is down.
    await fault('redis outage', () => redisOutage(redis, url, load, 10));
    // Neither the API nor the first projector's successor died of any of the faults above.
    expect(running(api!.current)).toBe(true);
    expect(api!.current.child.pid).toBe(firstApi);
    expect(projector.current.child.pid).not.toBe(firstProjector);
    expect(running(projector.current)).toBe(true);
    await fault('api SIGKILL', async () => {
      await api!.kill('SIGKILL');
      await api!.start();
    });

    const operations = await load.stop();
    // Every operation ended in a 2xx: no client gave up and nothing was refused.
    expect(operations.filter((op) => op.gaveUp || op.status !== 200).map((op) => ({ index: op.index, attempts: op.attempts })), apiErrors()).toEqual([]);
    // Every refusal a client was given during the faults was the retryable 503 of the Query route in
    // the envelope, never a 500 or another code (an attempt without status got no answer at all).
    const refusals = operations.flatMap((op) => op.attempts).filter((attempt) => attempt.status !== undefined && attempt.status !== 200);
    expect(refusals.filter((attempt) => attempt.status !== 503 || !isQueryUnavailable(attempt.body))).toEqual([]);
    const cards = operations.flatMap((op) => (op.body as { data: { cards: { offer_instance_id: string }[] } }).data.cards);
    const served = new Set(cards.map((card) => card.offer_instance_id));
    expect(cards).toHaveLength(operations.length * 2);
    expect(served.size).toBe(cards.length); // no card handed out twice

    await withRuntime(env, async (runtime) => {
      // The projector has applied everything the log holds, so the read model can be compared to it.
      await awaitCaughtUp(runtime, [servesProjection], 60_000);
      const ends = await runtime.eventLog.endOffsets('serves');
      const total = ends.reduce((sum, end) => sum + Number(end.offset), 0);
      const logged = await readTopic(runtime.eventLog, 'serves', (events) => events.length >= total);
      const loggedIds = logged.map((event) => (event.value as { offer_instance_id: string }).offer_instance_id);
      const seen = new Set<string>();
      expect(loggedIds.filter((id) => seen.has(id) || !seen.add(id))).toEqual([]); // no instance id appended twice
      const { rows } = await runtime.db.query<{ offer_instance_id: string }>('SELECT offer_instance_id FROM served_instances');
      const stored = rows.map((row) => row.offer_instance_id);
      // The read model holds exactly the log (a 503'd request's serves included), each id once.
      expect(stored.sort()).toEqual([...seen].sort());
      expect([...served].filter((id) => !seen.has(id))).toEqual([]);
    });
    // Every card handed out is found by the instance route once the faults are over.
    const apiUrl = api!.current.url;
    const missing: string[] = [];
    const handedOut = [...served];
    for (let from = 0; from < handedOut.length; from += 100) {
      const batch = handedOut.slice(from, from + 100);
      const answer = await lookUp(apiUrl, batch);
      expect(answer.status).toBe(200);
      const items = (answer.body as { data: { instances: { offer_instance_id: string; status: string }[] } }).data.instances;
      missing.push(...items.filter((item) => item.status !== 'found').map((item) => item.offer_instance_id));
    }
    expect(missing).toEqual([]);
    process.stderr.write(`[faults-serving] ${operations.length} operations, ${served.size} cards; per fault until recovered: ${JSON.stringify(felt)}\n`);
  }, 300_000);
});
