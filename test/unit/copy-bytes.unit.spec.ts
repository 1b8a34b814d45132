import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyBytes, viewOf } from '../../services/api/routes/offers/copy-bytes.js';

describe('copyBytes', () => {
  it('copies exactly the range, four bytes at a time and the rest one by one, leaving the target\'s other bytes alone', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat(80), fc.nat(80), fc.nat(7), (bytes, from, to, offset) => {
        const [start, end] = from <= to ? [Math.min(from, bytes.length), Math.min(to, bytes.length)] : [Math.min(to, bytes.length), Math.min(from, bytes.length)];
        // The source sits at an odd place of its buffer, as a pooled Buffer may.
        const source = new Uint8Array(bytes.length + 3).subarray(3);
        source.set(bytes);
        const target = new Uint8Array(offset + (end - start) + 5).fill(0xee);
        expect(copyBytes(viewOf(source), start, end, viewOf(target), offset)).toBe(offset + end - start);
        expect([...target.subarray(offset, offset + end - start)]).toEqual([...bytes.subarray(start, end)]);
        expect([...target.subarray(0, offset), ...target.subarray(offset + end - start)].every((byte) => byte === 0xee)).toBe(true);
      }),
    );
  });
});
