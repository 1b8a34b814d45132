import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../platform/db/db.js';
import { awaitCaughtUp, lastSeenAtEnd } from '../../platform/projection/catch-up.js';
import type { Projection } from '../../platform/projection/projection.js';
import { openWatermarks } from '../../platform/projection/watermarks.js';
import type { Runtime } from '../../platform/runtime.js';

/**
 * A wait for the read models keeps its budget when the machine's wall clock is stepped in the
 * middle of it (an NTP correction): a step forward must not end it at once, a step back must not
 * hold the caller for as long as the step. Only the wall clock (Date) is stepped; the timers and
 * the monotonic clock run on. The runtime and database are fakes that answer when the test says.
 */
const STEP_MS = 10 * 60_000;
const steps = [
  ['forward', STEP_MS],
  ['back', -STEP_MS],
] as const;

const later = <T>() => {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (settle = resolve));
  return { promise, settle };
};

describe('awaitCaughtUp when the wall clock steps during the wait', () => {
  afterEach(() => vi.useRealTimers());
  const accounts = { name: 'accounts', topics: ['accounts'] } as unknown as Projection;

  it.each(steps)('gives the read models what is left of the budget after a step %s', async (_direction, step) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const logEnd = later<{ topic: string; partition: number; offset: string }[]>();
    const budgets: number[] = [];
    const runtime = {
      watermarks: async () => ({ awaitApplied: async (_name: string, _events: unknown, timeoutMs: number) => (budgets.push(timeoutMs), true) }),
      eventLog: { endOffsets: () => logEnd.promise },
    } as unknown as Runtime;
    const wait = awaitCaughtUp(runtime, [accounts], 2_000);
    await vi.advanceTimersByTimeAsync(500);
    vi.setSystemTime(Date.now() + step);
    logEnd.settle([{ topic: 'accounts', partition: 0, offset: '4' }]);
    await wait;
    expect(budgets).toEqual([1_500]);
  });

  it('dates the wait by the wall clock, which the minting times of ids are compared with', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const runtime = {
      watermarks: async () => ({ awaitApplied: async () => true }),
      eventLog: { endOffsets: async () => [{ topic: 'accounts', partition: 0, offset: '4' }] },
    } as unknown as Runtime;
    const startedAt = Date.now();
    await awaitCaughtUp(runtime, [accounts], 2_000);
    expect(lastSeenAtEnd(runtime, [accounts])).toBe(startedAt);
  });
});

describe('awaitApplied when the wall clock steps while it reads the stored positions', () => {
  afterEach(() => vi.useRealTimers());

  it.each(steps)('still answers false at its timeout after a step %s, not before nor minutes later', async (_direction, step) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const positions = later<{ rows: unknown[] }>();
    const db = { listen: async () => async () => {}, query: () => positions.promise } as unknown as Db;
    const watermarks = await openWatermarks(db);
    let answer: boolean | undefined;
    void watermarks.awaitApplied('ledger', [{ topic: 'postbacks', partition: 0, offset: '3' }], 2_000).then((applied) => (answer = applied));
    await vi.advanceTimersByTimeAsync(500);
    vi.setSystemTime(Date.now() + step);
    // Nothing applied yet: the wait goes on for what is left of its 2 s.
    positions.settle({ rows: [] });
    await vi.advanceTimersByTimeAsync(1_400);
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(200);
    expect(answer).toBe(false);
  });
});
