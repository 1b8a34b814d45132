import { describe, expect, it } from 'vitest';
import { isUnpropagatedTopic, retryRetriable, TopicNotPropagatedError } from '../../platform/events/kafka-retry.js';

/** What kafkajs' fetchTopicOffsets throws for a topic whose partitions the asked broker does not know yet. */
const unpropagated = () => new TypeError("Cannot destructure property 'partitions' of 'high.pop(...)' as it is undefined.");

/** A call that fails with each of `failures` in turn, then answers. */
function failingThen<T>(failures: Error[], answer: T) {
  let calls = 0;
  return {
    call: async () => {
      calls += 1;
      const failure = failures[calls - 1];
      if (failure) throw failure;
      return answer;
    },
    calls: () => calls,
  };
}

describe('retrying Kafka admin calls', () => {
  it('retries kafkajs retriable errors', async () => {
    const flaky = failingThen([Object.assign(new Error('The coordinator is loading'), { retriable: true })], 'ok');
    await expect(retryRetriable(flaky.call)).resolves.toBe('ok');
    expect(flaky.calls()).toBe(2);
  });

  it('retries a freshly created topic whose partitions the broker does not know yet, when asked to', async () => {
    // kafkajs' own TypeError, and a short answer its caller found (fetchOffsets without the topic).
    const flaky = failingThen([unpropagated(), new TopicNotPropagatedError('serves'), unpropagated()], [{ partition: 0 }]);
    await expect(retryRetriable(flaky.call, 12, isUnpropagatedTopic)).resolves.toEqual([{ partition: 0 }]);
    expect(flaky.calls()).toBe(4);
  });

  it('gives up on other errors at once, and on that one when not asked to retry it', async () => {
    const other = failingThen([new TypeError('x is not a function')], 'never');
    await expect(retryRetriable(other.call, 12, isUnpropagatedTopic)).rejects.toThrow('x is not a function');
    expect(other.calls()).toBe(1);
    const unasked = failingThen([unpropagated()], 'never');
    await expect(retryRetriable(unasked.call)).rejects.toThrow(TypeError);
    expect(unasked.calls()).toBe(1);
  });

  it('gives up after the attempts it is given', async () => {
    const always = failingThen([unpropagated(), unpropagated(), unpropagated()], 'never');
    await expect(retryRetriable(always.call, 2, isUnpropagatedTopic)).rejects.toThrow(TypeError);
    expect(always.calls()).toBe(2);
  });
});
