import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventLog } from '../../platform/events/event-log.js';
import { UNANSWERED_LOG_LIMIT_MS, watchForAnUnansweredLog } from '../../platform/projection/rebuild.js';
import { BackendUnavailableError } from '../../platform/startup.js';

// A rebuild waiting on a log that stops answering gives up after a minute as an unavailable
// backend (exit 4), instead of sitting at 0 events/s; a slow log that still answers is waited on.
describe('watchForAnUnansweredLog', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const logThat = (ping: () => Promise<void>) => ({ kind: 'kafka', ping }) as unknown as EventLog;

  it('gives up, naming KAFKA_BROKERS, once the log has not answered for the limit while nothing was applied', async () => {
    const giveUp = vi.fn();
    const timer = watchForAnUnansweredLog(logThat(() => Promise.reject(new Error('connect ECONNREFUSED'))), () => 0, giveUp);
    await vi.advanceTimersByTimeAsync(UNANSWERED_LOG_LIMIT_MS - 10_000);
    expect(giveUp).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(15_000);
    clearInterval(timer);
    expect(giveUp).toHaveBeenCalledOnce();
    const error = giveUp.mock.calls[0]![0] as BackendUnavailableError;
    expect(error).toBeInstanceOf(BackendUnavailableError);
    expect(error.setting).toBe('KAFKA_BROKERS');
    expect(error.message).toMatch(/has not answered for \d+ s .*ECONNREFUSED.*run the replay again/);
  });

  it('counts a ping that hangs as no answer', async () => {
    const giveUp = vi.fn();
    const timer = watchForAnUnansweredLog(logThat(() => new Promise(() => {})), () => 0, giveUp);
    await vi.advanceTimersByTimeAsync(UNANSWERED_LOG_LIMIT_MS + 15_000);
    clearInterval(timer);
    expect(giveUp).toHaveBeenCalledOnce();
  });

  it.each([
    ['forward', 3_600_000],
    ['back', -3_600_000],
  ])('times the silence by the limit, not by a step of the wall clock meanwhile (%s)', async (_direction, step) => {
    const giveUp = vi.fn();
    const timer = watchForAnUnansweredLog(logThat(() => Promise.reject(new Error('connect ECONNREFUSED'))), () => 0, giveUp);
    await vi.advanceTimersByTimeAsync(6_000);
    vi.setSystemTime(Date.now() + step);
    await vi.advanceTimersByTimeAsync(UNANSWERED_LOG_LIMIT_MS - 20_000);
    expect(giveUp).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(25_000);
    clearInterval(timer);
    expect(giveUp).toHaveBeenCalledOnce();
  });

  it('never gives up while the log answers, or while events are applied', async () => {
    const giveUp = vi.fn();
    const answering = watchForAnUnansweredLog(logThat(() => Promise.resolve()), () => 0, giveUp);
    let applied = 0;
    const progressing = watchForAnUnansweredLog(logThat(() => Promise.reject(new Error('down'))), () => (applied += 1), giveUp);
    await vi.advanceTimersByTimeAsync(3 * UNANSWERED_LOG_LIMIT_MS);
    clearInterval(answering);
    clearInterval(progressing);
    expect(giveUp).not.toHaveBeenCalled();
  });
});
