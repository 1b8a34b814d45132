import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { replayPace, replayProgressBar } from '../../services/replay/progress.js';

describe('replayPace', () => {
  it('is events/s since the start, the events still to apply and the seconds left at that rate', () => {
    expect(replayPace({ applied: 30_000, target: 120_000 }, 2)).toEqual({ events_per_second: 15_000, lag: 90_000, eta_seconds: 6 });
  });

  it('has no ETA before a rate is known, and none left once caught up', () => {
    expect(replayPace({ applied: 0, target: 500 }, 0)).toEqual({ events_per_second: 0, lag: 500, eta_seconds: null });
    expect(replayPace({ applied: 500, target: 500 }, 4)).toEqual({ events_per_second: 125, lag: 0, eta_seconds: 0 });
  });

  it('rounds the ETA up, so it never says 0 while events remain', () => {
    expect(replayPace({ applied: 3, target: 4 }, 1).eta_seconds).toBe(1);
  });
});

describe('replayProgressBar', () => {
  /** The bar's lines as a log (not a terminal) would get them. */
  function barLines(updates: Parameters<ReturnType<typeof replayProgressBar>['update']>[0][]): string {
    const stream = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    let written = '';
    (stream as unknown as PassThrough).on('data', (chunk: Buffer) => (written += chunk.toString()));
    const bar = replayProgressBar(stream);
    for (const update of updates) bar.update(update);
    bar.stop();
    return written;
  }

  it("shows the pace a replay run by DATA_DIR's owner reports, not one from the bar's late start", () => {
    const text = barLines([{ applied: 59_982, target: 59_982, events_per_second: 14_000, lag: 0, eta_seconds: 0 }]);
    expect(text).toContain('59982/59982 events | 14000 events/s | lag 0');
  });
});
