import { afterEach, describe, expect, it, vi } from 'vitest';
import { caughtUpReport } from '../../services/projector/caught-up-report.js';

function recorder(lags: Array<number | Error | undefined>) {
  const said: string[] = [];
  const report = caughtUpReport({
    totalLag() {
      const next = lags.shift();
      if (next === undefined) return undefined;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    caughtUp: () => said.push('caught_up'),
    checkFailed: (error) => said.push(`failed: ${(error as Error).message}`),
  });
  return { report, said };
}

describe("the projector's caught_up report", () => {
  afterEach(() => vi.useRealTimers());

  it('says caught_up only when nothing is left, and nothing while the projections are starting', async () => {
    const { report, said } = recorder([undefined, 3, 0]);
    await report();
    await report();
    expect(said).toEqual([]);
    await report();
    expect(said).toEqual(['caught_up']);
  });

  it('a failed lag check (the database session dropped) is reported, never rejected, and the next batch checks again', async () => {
    const { report, said } = recorder([new Error('terminating connection due to administrator command'), 0]);
    await expect(report()).resolves.toBeUndefined();
    await report();
    expect(said).toEqual(['failed: terminating connection due to administrator command', 'caught_up']);
  });

  it('a batch applied during a check asks for one more check, not a second concurrent one', async () => {
    let release!: (lag: number) => void;
    const lags = [new Promise<number>((resolve) => (release = resolve)), Promise.resolve(0)];
    let calls = 0;
    const said: string[] = [];
    const report = caughtUpReport({ totalLag: () => (calls++, lags.shift()), caughtUp: () => said.push('caught_up'), checkFailed: () => {} });
    const first = report();
    await report(); // during the first check: returns at once
    expect(calls).toBe(1);
    release(2);
    await first;
    expect(calls).toBe(2);
    expect(said).toEqual(['caught_up']);
  });

  it('checks again after the least interval, however the wall clock was stepped back meanwhile', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const lags = [3, 0];
    const said: string[] = [];
    const report = caughtUpReport({ totalLag: () => Promise.resolve(lags.shift()!), caughtUp: () => said.push('caught_up'), checkFailed: () => {}, minIntervalMs: 500 });
    await report();
    vi.setSystemTime(Date.now() - 10 * 60_000);
    void report();
    await vi.advanceTimersByTimeAsync(600);
    expect(said).toEqual(['caught_up']);
  });
});
