import { afterEach, describe, expect, it, vi } from 'vitest';
import { awaitCaughtUp, LogEndUnknownError, ReadModelsBehindError } from '../../platform/projection/catch-up.js';
import { hungLog } from '../support/hung-log.js';

/**
 * A wait for the read models ends at its timeout even when the log never says where it ends (a
 * hung broker, whose requests the Kafka client retries for minutes): an admin command waited 6
 * minutes for its answer that way. The runtime is a fake whose log never answers; only the
 * timing and the error are under test.
 */
describe('awaitCaughtUp when the log does not say where it ends', () => {
  afterEach(() => vi.useRealTimers());

  it('throws LogEndUnknownError (a ReadModelsBehindError, so every caller answers it as retryable) once the timeout passes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { runtime, accounts: projection } = hungLog();
    let outcome: unknown;
    void awaitCaughtUp(runtime, [projection], 2_000).then(
      () => (outcome = 'caught up'),
      (error: unknown) => (outcome = error),
    );
    await vi.advanceTimersByTimeAsync(1_900);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(200);
    expect(outcome).toBeInstanceOf(LogEndUnknownError);
    expect(outcome).toBeInstanceOf(ReadModelsBehindError);
    expect((outcome as Error).message).toMatch(/event log did not say where the topics of the accounts read model end within 2 s/);
  });

  it('names the wait in seconds as a person reads them (a leftover budget of 1009 ms is 1 s)', () => {
    expect(new ReadModelsBehindError('serves', 1_009).message).toMatch(/within 1 s;/);
    expect(new LogEndUnknownError('serves', 2_549).message).toMatch(/within 2.5 s;/);
  });
});
