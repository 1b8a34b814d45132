import { afterEach, describe, expect, it, vi } from 'vitest';
import { jobFollowers } from '../../services/admin/job-followers.js';

/** Whether `promise` has settled by the time pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('job followers (the shutdown waits for them to read how their job ended)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits for a followed job until a poll reads its final state', async () => {
    vi.useFakeTimers();
    const followers = jobFollowers();
    followers.started('a');
    const read = followers.finalStatesRead(['a'], 1_000);
    followers.polled({ id: 'a', state: 'running' });
    expect(await settled(read)).toBe(false);
    followers.polled({ id: 'a', state: 'cancelled' });
    expect(await settled(read)).toBe(true);
  });

  it('does not wait for a job nobody follows, nor for one whose end was already read', async () => {
    vi.useFakeTimers();
    const followers = jobFollowers();
    followers.polled({ id: 'b', state: 'done' });
    expect(await settled(followers.finalStatesRead(['a', 'b'], 1_000))).toBe(true);
  });

  it('gives up after its time: a follower that went away reads nothing more', async () => {
    vi.useFakeTimers();
    const followers = jobFollowers();
    followers.polled({ id: 'a', state: 'running' });
    const read = followers.finalStatesRead(['a'], 1_000);
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(read)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(read)).toBe(true);
  });

  it('takes new jobs until the shutdown begins, then refuses them with 503 SHUTTING_DOWN', () => {
    const followers = jobFollowers();
    expect(() => followers.admitNewJob()).not.toThrow();
    followers.refuseNewJobs();
    expect(() => followers.admitNewJob()).toThrow(expect.objectContaining({ statusCode: 503, code: 'SHUTTING_DOWN' }));
  });
});
