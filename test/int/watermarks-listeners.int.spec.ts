import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { APPLIED_CHANNEL, SWAPPED_PAYLOAD } from '../../platform/projection/offsets.js';
import { applyBatch } from '../../platform/projection/runner.js';
import { openWatermarks, type Watermarks } from '../../platform/projection/watermarks.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait-for.js';

/** Listeners of applied commits (the read caches) hear a commit before anyone waiting for it wakes. */
describe('watermark listeners', () => {
  let database: TestDatabase;
  let watermarks: Watermarks;

  beforeAll(async () => {
    database = await createTestDatabase();
    watermarks = await openWatermarks(database.db);
  });
  afterAll(async () => {
    await watermarks?.close();
    await database?.drop();
  });

  const event = (offset: number): LoggedEvent => ({ topic: 't', partition: 0, offset: String(offset), key: 'k', type: 'x', value: {}, schemaId: 0, timestamp: new Date() });
  const projection = (name: string) => ({ name, topics: ['t'], tables: [], apply: async () => {} });

  it('are called with the applied position before awaitApplied resolves, on another session\'s commit', async () => {
    const heard: string[] = [];
    const unsubscribe = watermarks.onApplied((position) => heard.push(position ? `${position.projection}@${position.next}` : 'gap'));
    let heardWhenWoken: string[] = [];
    const waiting = watermarks.awaitApplied('listened', [{ topic: 't', partition: 0, offset: '2' }], 30_000).then((applied) => {
      heardWhenWoken = [...heard];
      return applied;
    });
    await applyBatch(database.db, projection('listened'), { topic: 't', partition: 0, events: [event(0), event(1), event(2)] });
    expect(await waiting).toBe(true);
    expect(heardWhenWoken).toContain('listened@3');
    unsubscribe();
    await applyBatch(database.db, projection('listened'), { topic: 't', partition: 0, events: [event(3)] });
    expect(await watermarks.awaitApplied('listened', [{ topic: 't', partition: 0, offset: '3' }], 30_000)).toBe(true);
    expect(heard).not.toContain('listened@4');
  });

  it('wake a waiter from the commit\'s notification itself: a position only notified, never stored, satisfies it', async () => {
    // A waiter that read the offsets table again (polling) would never see this position: it is
    // announced on the channel as a commit announces it, and written nowhere.
    const waiting = watermarks.awaitApplied('notified-only', [{ topic: 't', partition: 0, offset: '5' }], 30_000);
    const position = { projection: 'notified-only', topic: 't', partition: 0, next: '6' };
    await database.db.query('SELECT pg_notify($1, $2)', [APPLIED_CHANNEL, JSON.stringify(position)]);
    expect(await waiting).toBe(true);
    expect((await database.db.query("SELECT 1 FROM projection_offsets WHERE projection = 'notified-only'")).rows).toEqual([]);
  });

  it('tell a swap of rebuilt read models from missed notifications, and read positions again after it', async () => {
    const heard: string[] = [];
    const unsubscribe = watermarks.onApplied((position, reset) => heard.push(position ? `${position.projection}@${position.next}` : `reset:${reset}`));
    await applyBatch(database.db, projection('swapped'), { topic: 't', partition: 0, events: [event(0)] });
    expect(await watermarks.awaitApplied('swapped', [{ topic: 't', partition: 0, offset: '0' }], 30_000)).toBe(true);
    await database.db.query('SELECT pg_notify($1, $2)', [APPLIED_CHANNEL, SWAPPED_PAYLOAD]);
    await waitFor(() => heard.includes('reset:swap'), { what: 'the swap to be heard' });
    expect(heard).not.toContain('reset:gap');
    await applyBatch(database.db, projection('swapped'), { topic: 't', partition: 0, events: [event(1)] });
    expect(await watermarks.awaitApplied('swapped', [{ topic: 't', partition: 0, offset: '1' }], 30_000)).toBe(true);
    unsubscribe();
  });

  it('survive their listening session being killed: a gap is signalled and later commits still wake waiters', async () => {
    const heard: string[] = [];
    const unsubscribe = watermarks.onApplied((position, reset) => heard.push(position ? `${position.projection}@${position.next}` : reset === 'gap' ? 'gap' : `reset:${reset}`));
    // The gap is signalled as soon as a session drops, before its replacement listens: this waits
    // for a listening session (to kill, or to hear the commit below).
    const listening = () =>
      waitFor(
        async () =>
          (await database.db.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`)).rows.length > 0,
        { what: 'a listening session' },
      );
    // Kill the LISTEN session twice: the first reconnect must not be the only one.
    for (let round = 0; round < 2; round++) {
      await listening();
      const { rows } = await database.db.query<{ killed: boolean }>(
        `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
      );
      expect(rows.some((row) => row.killed)).toBe(true);
      const gapsBefore = heard.filter((entry) => entry === 'gap').length;
      await waitFor(() => heard.filter((entry) => entry === 'gap').length > gapsBefore, { what: 'the listening session to come back' });
    }
    await listening();
    await applyBatch(database.db, projection('reconnected'), { topic: 't', partition: 0, events: [event(0)] });
    expect(await watermarks.awaitApplied('reconnected', [{ topic: 't', partition: 0, offset: '0' }], 30_000)).toBe(true);
    // Listeners hear notifications only (awaitApplied may also have read the table): the commit's
    // reached the process through the session that came back.
    await waitFor(() => heard.includes('reconnected@1'), { what: 'the commit to be heard on the new listening session' });
    unsubscribe();
  });
});

