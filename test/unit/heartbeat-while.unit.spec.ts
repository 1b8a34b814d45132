import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { heartbeatWhile } from '../../platform/events/heartbeat-while.js';

describe('heartbeatWhile', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** A batch that finishes when the test says so. */
  function pendingWork<T>() {
    let finish!: (value: T) => void;
    let fail!: (error: Error) => void;
    const promise = new Promise<T>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
    return { work: () => promise, finish, fail };
  }

  it('heartbeats every interval while the work runs, and not after', async () => {
    const heartbeat = vi.fn(async () => {});
    const batch = pendingWork<string>();
    const running = heartbeatWhile(heartbeat, 1_000, batch.work);
    await vi.advanceTimersByTimeAsync(7_500);
    expect(heartbeat).toHaveBeenCalledTimes(7);
    batch.finish('applied');
    await expect(running).resolves.toBe('applied');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(heartbeat).toHaveBeenCalledTimes(7);
  });

  it('goes on when a heartbeat fails (a rebalance), and passes the work failure on', async () => {
    const heartbeat = vi.fn(async () => {
      throw new Error('The group is rebalancing');
    });
    const batch = pendingWork<string>();
    const running = heartbeatWhile(heartbeat, 1_000, batch.work);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(heartbeat).toHaveBeenCalledTimes(3);
    batch.fail(new Error('apply failed'));
    await expect(running).rejects.toThrow('apply failed');
    await vi.advanceTimersByTimeAsync(3_000);
    expect(heartbeat).toHaveBeenCalledTimes(3);
  });

  it('does not heartbeat for work shorter than the interval', async () => {
    const heartbeat = vi.fn(async () => {});
    await expect(heartbeatWhile(heartbeat, 1_000, async () => 42)).resolves.toBe(42);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(heartbeat).not.toHaveBeenCalled();
  });
});
