import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReplayOptions } from '../../platform/projection/replay.js';
import type { Runtime } from '../../platform/runtime.js';

// A replay that applies half its events, then waits (on a database that stopped answering).
vi.mock('../../platform/projection/replay.js', () => ({
  replay: (_db: unknown, _log: unknown, options: ReplayOptions) => {
    vi.advanceTimersByTime(1_000);
    options.onProgress?.({ applied: 10_000, target: 20_000 });
    return new Promise(() => {});
  },
}));

const { replayJobs } = await import('../../services/replay/jobs.js');

afterEach(() => {
  vi.useRealTimers();
});

describe('a replay job read while its replay applies nothing', () => {
  it('reports the pace as of the look (GET /admin/replays/{id}, the CLI through the owner), not as of its last batch', async () => {
    vi.useFakeTimers({ toFake: ['performance', 'Date'] });
    const jobs = replayJobs({ config: { databaseUnansweredMs: 60_000 } } as Runtime);
    const { id } = await jobs.start({ projections: ['ledger'] });
    expect(jobs.get(id)!.progress).toEqual({ applied: 10_000, target: 20_000, events_per_second: 10_000, lag: 10_000, eta_seconds: 1 });
    vi.advanceTimersByTime(9_000);
    expect(jobs.get(id)!.progress).toEqual({ applied: 10_000, target: 20_000, events_per_second: 1_000, lag: 10_000, eta_seconds: 10 });
  });
});
