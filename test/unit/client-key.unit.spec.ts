import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rateLimitKey } from '../../platform/http/client-key.js';

describe('rateLimitKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ])('%s is counted as %s', (address, key) => {
    expect(rateLimitKey(address)).toBe(key);
  });

  it('counts every address of one /64 together, and addresses of different /64s apart', () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((value) => value.toString(16));
    const groups = (count: number) => fc.array(group, { minLength: count, maxLength: count });
    fc.assert(fc.property(groups(4), groups(4), groups(4), (network, hostA, hostB) => {
      expect(rateLimitKey([...network, ...hostA].join(':'))).toBe(rateLimitKey([...network, ...hostB].join(':')));
    }));
    fc.assert(fc.property(groups(8), groups(8), (a, b) => {
      const sameNetwork = a.slice(0, 4).every((value, index) => parseInt(value, 16) === parseInt(b[index]!, 16));
      expect(rateLimitKey(a.join(':')) === rateLimitKey(b.join(':'))).toBe(sameNetwork);
    }));
  });
});
