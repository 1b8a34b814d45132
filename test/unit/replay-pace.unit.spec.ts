import { describe, expect, it, vi } from 'vitest';
import { PassThrough } from 'node:stream';
import { etaText } from '../../platform/text/eta.js';
import { barProgress } from '../../services/export/progress.js';
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

  it('reads its pace again as time passes: a replay that stopped applying does not keep the rate and ETA of its last batch', () => {
    vi.useFakeTimers();
    try {
      const stream = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
      let written = '';
      (stream as unknown as PassThrough).on('data', (chunk: Buffer) => (written += chunk.toString()));
      let clock = 0;
      const bar = replayProgressBar(stream, () => clock);
      bar.update({ applied: 0, target: 20_000 });
      clock = 1_000;
      bar.update({ applied: 10_000, target: 20_000 });
      // Nothing applied for 9 s (a database that stopped answering): 10,000 events in 10 s.
      for (let second = 0; second < 9; second += 1) {
        clock += 1_000;
        vi.advanceTimersByTime(1_000);
      }
      bar.stop();
      const lines = written.split('\n').filter((line) => line.startsWith('rebuilding'));
      expect(lines.at(-1)).toContain('10000/20000 events | 1000 events/s | lag 10000 | ETA 10s');
    } finally {
      vi.useRealTimers();
    }
  });

  it('names the step under way once the events are applied, instead of rebuilding at 100 %', () => {
    const text = barLines([{ applied: 5_000, target: 10_000 }, { applied: 10_000, target: 10_000, step: 'comparing' }]);
    expect(text).toMatch(/^rebuilding \[/m);
    expect(text).toMatch(/^comparing \[.*\] 100% \| 10000\/10000 events/m);
  });

  it("shows the pace a replay run by DATA_DIR's owner reports, not one from the bar's late start", () => {
    const text = barLines([{ applied: 59_982, target: 59_982, events_per_second: 14_000, lag: 0, eta_seconds: 0 }]);
    expect(text).toContain('59982/59982 events | 14000 events/s | lag 0');
  });
});

describe('the time left on the progress lines', () => {
  it('is the remaining work at the caller\'s rate: ? before a rate, then seconds, minutes, hours', () => {
    expect(etaText(500, 0)).toBe('?');
    expect(etaText(0, 0)).toBe('0s');
    expect(etaText(90_000, 15_000)).toBe('6s');
    expect(etaText(1, 15_000)).toBe('1s');
    expect(etaText(185, 1)).toBe('3m05s');
    expect(etaText(7_620, 1)).toBe('2h07m');
  });

  it('a replay run in the service, reported once in a while, says the time left at its pace (cli-progress said 0s)', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    let written = '';
    (stream as unknown as PassThrough).on('data', (chunk: Buffer) => (written += chunk.toString()));
    const bar = replayProgressBar(stream);
    bar.update({ applied: 2_878, target: 27_825, events_per_second: 9_509, lag: 24_947, eta_seconds: 3 });
    bar.stop();
    expect(written).toContain('2878/27825 events | 9509 events/s | lag 24947 | ETA 3s');
  });

  it('an export line says ? before any row, then the time left at its rate', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    let written = '';
    (stream as unknown as PassThrough).on('data', (chunk: Buffer) => (written += chunk.toString()));
    const progress = barProgress(stream);
    progress.start('serves → csv', 20_009);
    progress.stop();
    expect(written).toContain('0/20009 | 0/s | ETA ?');
  });
});
