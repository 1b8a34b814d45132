import { describe, expect, it } from 'vitest';
import { replayPace } from '../../services/replay/progress.js';

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
