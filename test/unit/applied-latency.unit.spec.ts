import { describe, expect, it } from 'vitest';
import { appliedLatencySampler } from '../../platform/projection/applied-latency.js';

/** awaitApplied by hand: each call waits until the test settles it (true: applied, false: timed out). */
function handWatermarks() {
  const pending: ((applied: boolean) => void)[] = [];
  return {
    pending,
    awaitApplied: () => new Promise<boolean>((resolve) => pending.push(resolve)),
  };
}

const position = [{ topic: 'serves', partition: 0, offset: '7' }];
/** Lets the sampler's promise callbacks run. */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the applied-latency sampler', () => {
  it('records append → applied for each followed append, a timed-out one too, and follows at most 64 at once', async () => {
    const watermarks = handWatermarks();
    const observed: number[] = [];
    const sample = appliedLatencySampler(watermarks, (seconds) => observed.push(seconds));
    // Appended a quarter of a second before: each sample is at least that (seconds, not milliseconds).
    const started = performance.now() - 250;
    for (let i = 0; i < 70; i += 1) sample('serves', position, started);
    expect(watermarks.pending).toHaveLength(64);

    watermarks.pending[0]!(true);
    watermarks.pending[1]!(false);
    await settled();
    expect(observed).toHaveLength(2);
    for (const seconds of observed) expect(seconds).toBeGreaterThanOrEqual(0.25);

    // Two places freed: the next two appends are followed, the third is not.
    for (let i = 0; i < 3; i += 1) sample('serves', position, performance.now());
    expect(watermarks.pending).toHaveLength(66);
  });
});
