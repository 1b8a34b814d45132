import { describe, expect, it } from 'vitest';
import { validate, version } from 'uuid';
import { uuidV7 } from '../../platform/ids/uuid-v7.js';

describe('uuidV7', () => {
  it('mints valid, distinct, ever-increasing version 7 ids carrying the current millisecond', () => {
    const before = Date.now();
    // More ids than one pool refill holds, most of them within one millisecond.
    const ids = Array.from({ length: 5_000 }, () => uuidV7());
    const after = Date.now();
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(validate(id) && version(id) === 7).toBe(true);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    for (let index = 1; index < ids.length; index += 1) expect(ids[index]! > ids[index - 1]!).toBe(true);
    const millisecond = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(millisecond(ids[0]!)).toBeGreaterThanOrEqual(before);
    // A sequence that wraps borrows at most a few milliseconds ahead.
    expect(millisecond(ids[ids.length - 1]!)).toBeLessThanOrEqual(after + 5);
  });

  it('draws fresh random bits for every id', () => {
    const tails = new Set(Array.from({ length: 1_000 }, () => uuidV7().slice(-12)));
    expect(tails.size).toBe(1_000);
  });
});
