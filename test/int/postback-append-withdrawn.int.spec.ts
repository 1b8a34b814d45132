import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostbackReceived } from '../../schemas/generated/events.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { postbackWorld, postPostback } from '../support/postback-world.js';
import { readTopic } from '../support/read-topic.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A log that stops answering while postbacks wait to be appended: the one already sent may still
 * be written when the log answers again, the ones queued behind it are taken back and never are.
 * The SQL log's append (the embedded default's, here on a Postgres server, so that another
 * session can hold it) is a transaction, held here by a lock on its partitions.
 */
describe('postbacks given up on while the log is stalled', () => {
  let t: TestRuntime & { app: Awaited<ReturnType<typeof createTestApp>>['app'] };
  let projectors: RunningProjectors;
  let world: Awaited<ReturnType<typeof postbackWorld>>;

  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'sql' });
    projectors = await startProjectors(t.runtime);
    world = await postbackWorld(t.runtime);
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  it('the postback sent first may be written later and says so; those queued behind it are never written and say nothing was logged', async () => {
    const card = await world.serve(world.cpaOffer);
    const body = (eventId: string) => ({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: eventId });
    // An API that gives up within about 3 s, so the test does not wait the default 5.
    const impatient = await buildApp({ runtime: { ...t.runtime, config: { ...t.runtime.config, postbackDecisionTimeoutMs: 10 } } });
    const lockedBy = new pg.Client({ connectionString: t.database.url });
    await lockedBy.connect();
    try {
      await lockedBy.query('BEGIN');
      await lockedBy.query('LOCK TABLE event_log_partitions IN EXCLUSIVE MODE');
      const sent = postPostback(impatient, world.partner, body('stalled-sent'));
      // The first append waits on the lock: what comes next queues behind it in the batcher.
      await waitFor(async () => {
        // A wait on this table in this database: other test files lock tables of their own.
        const { rows } = await t.database.db.query<{ waiting: number }>(
          "SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND relation = 'event_log_partitions'::regclass",
        );
        return rows[0]!.waiting > 0;
      }, { what: 'the first append to wait on the lock' });
      const queued = await Promise.all([postPostback(impatient, world.partner, body('stalled-queued-1')), postPostback(impatient, world.partner, body('stalled-queued-2'))]);
      const first = await sent;
      for (const answer of [first, ...queued]) {
        expect(answer.statusCode, answer.body).toBe(503);
        expect(answer.json().extra).toMatchObject({ reason: 'postback_v10_unavailable', retryable: true, event_logged: false });
      }
      expect(first.headers['svc-error-detail']).toMatch(/may still be recorded/);
      for (const answer of queued) expect(answer.headers['svc-error-detail']).toMatch(/nothing was logged/);
      await lockedBy.query('COMMIT');

      // The log answers again: the first is written, the others never are.
      const correlationOf = (answer: typeof first) => answer.json().extra.correlation_id as string;
      const logged = await readTopic(t.runtime.eventLog, 'postbacks', (events) => events.some((event) => (event.value as unknown as PostbackReceived).correlation_id === correlationOf(first)));
      const ids = new Set(logged.map((event) => (event.value as unknown as PostbackReceived).correlation_id));
      expect(queued.map(correlationOf).filter((id) => ids.has(id))).toEqual([]);
      // Their retries are taken as new: accepted, exactly once.
      for (const eventId of ['stalled-queued-1', 'stalled-queued-2']) {
        const retry = await postPostback(t.app, world.partner, body(eventId));
        expect(retry.statusCode, retry.body).toBe(200);
        expect(retry.json().data.result).toBe('accepted');
      }
      const retried = await postPostback(t.app, world.partner, body('stalled-sent'));
      expect(retried.json().data).toMatchObject({ result: 'already_recorded', correlation_id: correlationOf(first) });
    } finally {
      await lockedBy.query('ROLLBACK').catch(() => {});
      await lockedBy.end();
      await impatient.close();
    }
  });
});
