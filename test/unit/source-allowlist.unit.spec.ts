import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sourceAllowlist } from '../../commands/postbacks/source-allowlist.js';

describe('a partner source allowlist', () => {
  it.each<[string[], string, boolean]>([
    [['192.0.2.0/24'], '192.0.2.77', true],
    [['192.0.2.0/24'], '192.0.3.1', false],
    [['192.0.2.7/32'], '192.0.2.7', true],
    [['2001:db8::/32'], '2001:db8:1::5', true],
    [['2001:db8::/32'], '2001:db9::5', false],
    // Every IPv6 address is not every address.
    [['::/0'], '192.0.2.1', false],
    [['::/0'], '2001:db8::1', true],
    [['::/96'], '192.0.2.1', false],
    // Every IPv4 address is not every IPv6 address either.
    [['0.0.0.0/0'], '2001:db8::1', false],
    [['0.0.0.0/0'], '203.0.113.9', true],
    // An IPv4-mapped network names IPv4 addresses.
    [['::ffff:192.0.2.0/120'], '192.0.2.200', true],
    [['::ffff:192.0.2.0/120'], '192.0.3.1', false],
    [['::ffff:0.0.0.0/96'], '198.51.100.1', true],
    [['::1/128'], '::1', true],
    [['::1/128'], '127.0.0.1', false],
    [[], '127.0.0.1', false],
    [['127.0.0.1/32'], 'not an address', false],
  ])('%j admits %s: %s', (networks, address, admitted) => {
    expect(sourceAllowlist(networks)(address)).toBe(admitted);
  });

  it('admits an IPv4 address through a network exactly when it does through the same network written IPv4-mapped', () => {
    fc.assert(fc.property(fc.ipV4(), fc.ipV4(), fc.integer({ min: 0, max: 32 }), (address, base, prefix) => {
      const bits = base.split('.').reduce((value, part) => (value * 256) + Number(part), 0);
      const network = Math.floor(bits / 2 ** (32 - prefix)) * 2 ** (32 - prefix);
      const text = [24, 16, 8, 0].map((shift) => Math.floor(network / 2 ** shift) % 256).join('.');
      expect(sourceAllowlist([`::ffff:${text}/${96 + prefix}`])(address)).toBe(sourceAllowlist([`${text}/${prefix}`])(address));
    }));
  });
});
