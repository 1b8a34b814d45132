import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimeFormatter } from '../../platform/time/iso-time.js';

describe('isoTimeFormatter', () => {
  // Every millisecond Date can hold, weighted towards the years exports hold.
  const anyTime = fc.oneof(
    fc.integer({ min: -8.64e15, max: 8.64e15 }),
    fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }),
    fc.integer({ min: Date.UTC(-1, 0, 1), max: Date.UTC(10_000, 0, 1) }),
  );

  it('writes exactly what toISOString writes, for any time, in any order (each call may change the kept day)', () => {
    fc.assert(
      fc.property(fc.array(anyTime, { minLength: 1, maxLength: 20 }), (times) => {
        const time = isoTimeFormatter();
        for (const ms of times) expect(time(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes the times of one day from the kept day and minute, to the millisecond, across their boundaries and repeated', () => {
    const time = isoTimeFormatter();
    const day = Date.UTC(2026, 10, 27);
    for (const ms of [day, day, day + 1, day + 999, day + 59_999, day + 60_000, day + 60_000, day + 119_001, day + 3_599_999, day + 86_399_999, day + 86_400_000, day - 1, day - 1, day - 60_001]) {
      expect(time(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('hands what is not a whole millisecond to Date, as before: fractions are cut, no time is an error', () => {
    const time = isoTimeFormatter();
    expect(time(1.7)).toBe(new Date(1.7).toISOString());
    expect(() => time(Number.NaN)).toThrow(RangeError);
    expect(() => time(8.64e15 + 1)).toThrow(RangeError);
  });
});
