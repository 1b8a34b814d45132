import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PAST_DEADLINE, withinDeadline } from '../../platform/async/deadline.js';

describe('withinDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers the work's result when it settles in time", async () => {
    await expect(withinDeadline(Promise.resolve(7), 1_000)).resolves.toBe(7);
  });

  it("throws the work's failure when it fails in time", async () => {
    await expect(withinDeadline(Promise.reject(new Error('broken')), 1_000)).rejects.toThrow('broken');
  });

  it('answers PAST_DEADLINE once the time is up, and a later failure is not left unhandled', async () => {
    let fail: (error: Error) => void = () => {};
    const work = new Promise<number>((_, reject) => (fail = reject));
    const answer = withinDeadline(work, 3_000);
    await vi.advanceTimersByTimeAsync(2_999);
    let settled = false;
    void answer.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(answer).resolves.toBe(PAST_DEADLINE);
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    fail(new Error('too late'));
    await vi.advanceTimersByTimeAsync(0);
    process.off('unhandledRejection', unhandled);
    expect(unhandled).not.toHaveBeenCalled();
  });
});
