import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepConsumerRunning } from '../../platform/events/consumer-keeper.js';

/** A consumer as the keeper sees it: it reports crashes, and records whether it was let go. */
class FakeConsumer {
  disconnected = false;
  private listeners: ((event: { payload: { error: Error; restart: boolean } }) => void)[] = [];
  constructor(readonly id: number) {}
  on(_event: 'consumer.crash', listener: (event: { payload: { error: Error; restart: boolean } }) => void) {
    this.listeners.push(listener);
  }
  crash(restart: boolean, message = 'Failed to find group coordinator') {
    for (const listener of this.listeners) listener({ payload: { error: new Error(message), restart } });
  }
  async disconnect() {
    this.disconnected = true;
  }
}

function fleet(options: { failRuns?: number[] } = {}) {
  const built: FakeConsumer[] = [];
  const replaced: string[] = [];
  return {
    built,
    replaced,
    options: {
      build: () => {
        const consumer = new FakeConsumer(built.length);
        built.push(consumer);
        return consumer;
      },
      run: async (consumer: FakeConsumer) => {
        if (options.failRuns?.includes(consumer.id)) throw new Error(`broker down (consumer ${consumer.id})`);
      },
      retryMs: 1_000,
      onReplace: (error: Error) => void replaced.push(error.message),
    },
  };
}

describe('keepConsumerRunning', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('replaces a consumer that kafkajs will not restart, after the pause, with a new one', async () => {
    const { built, replaced, options } = fleet();
    const keeper = await keepConsumerRunning(options);
    built[0]!.crash(false);
    expect(replaced).toEqual(['Failed to find group coordinator']);
    await vi.advanceTimersByTimeAsync(999);
    expect(built).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(built).toHaveLength(2);
    expect(built[0]!.disconnected).toBe(true);
    expect(keeper.current()).toBe(built[1]);
    // The replacement is kept running too.
    built[1]!.crash(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(keeper.current()).toBe(built[2]);
  });

  it('leaves a consumer kafkajs restarts itself alone, and replaces a crashed one once however often it reports', async () => {
    const { built, options } = fleet();
    await keepConsumerRunning(options);
    built[0]!.crash(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(built).toHaveLength(1);
    built[0]!.crash(false);
    built[0]!.crash(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(built).toHaveLength(2);
    // A late report from the consumer already replaced changes nothing.
    built[0]!.crash(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(built).toHaveLength(2);
  });

  it('tries again while a replacement cannot start', async () => {
    const { built, replaced, options } = fleet({ failRuns: [1, 2] });
    const keeper = await keepConsumerRunning(options);
    built[0]!.crash(false);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(built).toHaveLength(4);
    expect(replaced).toEqual(['Failed to find group coordinator', 'broker down (consumer 1)', 'broker down (consumer 2)']);
    expect(built.slice(0, 3).map((consumer) => consumer.disconnected)).toEqual([true, true, true]);
    expect(keeper.current()).toBe(built[3]);
  });

  it('replaces nothing once halted, and disconnects the current consumer', async () => {
    const { built, options } = fleet();
    const keeper = await keepConsumerRunning(options);
    built[0]!.crash(false);
    await keeper.halt();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(built).toHaveLength(1);
    expect(built[0]!.disconnected).toBe(true);
  });

  it('rejects when the first consumer cannot start, and lets it go', async () => {
    const { built, options } = fleet({ failRuns: [0] });
    await expect(keepConsumerRunning(options)).rejects.toThrow('broker down');
    expect(built[0]!.disconnected).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(built).toHaveLength(1);
  });
});
