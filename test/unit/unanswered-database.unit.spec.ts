import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../platform/db/db.js';
import { watchForAnUnansweredDatabase } from '../../platform/db/unanswered-database.js';

// A replay on a database that answers nothing (a hung server) stops after the limit instead of
// waiting for good; one whose database answers its probe, however long its own statements take, goes on.
describe('watchForAnUnansweredDatabase', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const LIMIT_MS = 60_000;
  const databaseThat = (probe: () => Promise<void>) => ({ engine: 'postgres', probe }) as unknown as Db;
  const unanswered = (seconds: number, why: string) => new Error(`silent ${seconds} s: ${why}`);

  it('aborts its signal once no probe has answered for the limit, saying why', async () => {
    const watch = watchForAnUnansweredDatabase(databaseThat(() => Promise.reject(new Error('timeout exceeded when trying to connect'))), LIMIT_MS, unanswered);
    await vi.advanceTimersByTimeAsync(LIMIT_MS - 5_000);
    expect(watch.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    watch.stop();
    expect(watch.signal.reason).toEqual(new Error('silent 60 s: timeout exceeded when trying to connect'));
  });

  it('counts a probe that hangs as no answer', async () => {
    const watch = watchForAnUnansweredDatabase(databaseThat(() => new Promise(() => {})), LIMIT_MS, unanswered);
    await vi.advanceTimersByTimeAsync(LIMIT_MS + 5_000);
    watch.stop();
    expect(watch.signal.aborted).toBe(true);
  });

  it('goes on while the probe answers, and once stopped', async () => {
    const answering = watchForAnUnansweredDatabase(databaseThat(() => Promise.resolve()), LIMIT_MS, unanswered);
    const stopped = watchForAnUnansweredDatabase(databaseThat(() => new Promise(() => {})), LIMIT_MS, unanswered);
    stopped.stop();
    await vi.advanceTimersByTimeAsync(3 * LIMIT_MS);
    answering.stop();
    expect([answering.signal.aborted, stopped.signal.aborted]).toEqual([false, false]);
  });

  it('watches no embedded database (it has no probe session: a read there waits behind the work)', async () => {
    const watch = watchForAnUnansweredDatabase({ engine: 'pglite' } as unknown as Db, LIMIT_MS, unanswered);
    await vi.advanceTimersByTimeAsync(3 * LIMIT_MS);
    expect(watch.signal.aborted).toBe(false);
  });
});
