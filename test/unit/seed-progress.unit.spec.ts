import { afterEach, describe, expect, it, vi } from 'vitest';
import { progressBars } from '../../services/admin/seed/seed-context.js';

afterEach(() => vi.useRealTimers());

describe("the seed's progress off a terminal", () => {
  it('is a line every 5 s of work and one at the end, naming the phase and its count', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const lines: string[] = [];
    const phase = progressBars('lines', (line) => lines.push(line))('serves        ', 300);
    phase.tick(100);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(5_000);
    phase.tick(100);
    phase.tick(50);
    vi.advanceTimersByTime(5_000);
    phase.tick(50);
    phase.done();
    expect(lines).toEqual(['serves: 200 of 300 events', 'serves: 300 of 300 events', 'serves: 300 of 300 events, done']);
  });

  it('says nothing when turned off', () => {
    const lines: string[] = [];
    const phase = progressBars('none', (line) => lines.push(line))('offers', 10);
    phase.tick(10);
    phase.done();
    expect(lines).toEqual([]);
  });
});
