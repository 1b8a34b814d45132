import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PAST_DEADLINE, resultWithin, settledWithin, withinDeadline } from '../../platform/async/deadline.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('withinDeadline', () => {
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

describe('resultWithin and settledWithin', () => {
  it('resultWithin: the result in time, the work\'s failure, or late() once the time is up', async () => {
    await expect(resultWithin(Promise.resolve(7), 1_000, () => new Error('late'))).resolves.toBe(7);
    await expect(resultWithin(Promise.reject(new Error('broken')), 1_000, () => new Error('late'))).rejects.toThrow('broken');
    const late = resultWithin(new Promise(() => {}), 1_000, () => new Error('late'));
    const settled = expect(late).rejects.toThrow('late');
    await vi.advanceTimersByTimeAsync(1_000);
    await settled;
  });

  it('settledWithin never rejects: the value, or why there is none', async () => {
    await expect(settledWithin(Promise.resolve(7), 1_000)).resolves.toEqual({ ok: true, value: 7 });
    await expect(settledWithin(Promise.reject(new Error('refused')), 1_000)).resolves.toEqual({ ok: false, why: 'refused' });
    const hung = settledWithin(new Promise(() => {}), 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(hung).resolves.toEqual({ ok: false, why: 'no answer within 1000 ms' });
  });
});
