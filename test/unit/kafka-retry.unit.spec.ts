import { describe, expect, it } from 'vitest';
import { retryRetriable } from '../../platform/events/kafka-event-log.js';

const retriable = () => Object.assign(new Error('This is not the correct coordinator for this group'), { retriable: true });

describe('retryRetriable', () => {
  it('calls again while Kafka answers with a retriable error', async () => {
    let calls = 0;
    const result = await retryRetriable(async () => {
      calls += 1;
      if (calls < 3) throw retriable();
      return 'offsets';
    });
    expect(result).toBe('offsets');
    expect(calls).toBe(3);
  });

  it('gives up at once on an error that is not retriable, and after the last attempt otherwise', async () => {
    let calls = 0;
    await expect(retryRetriable(async () => {
      calls += 1;
      throw new Error('topic authorization failed');
    })).rejects.toThrow('authorization');
    expect(calls).toBe(1);
    calls = 0;
    await expect(retryRetriable(async () => {
      calls += 1;
      throw retriable();
    }, 3)).rejects.toThrow('coordinator');
    expect(calls).toBe(3);
  });
});
