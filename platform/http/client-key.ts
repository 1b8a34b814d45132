import { isIPv6 } from 'node:net';
import { ipv6Bits, plainAddress } from '../net/ip-text.js';

/**
 * What a client is counted under by the rate limits: its IPv4 address (an IPv4-mapped IPv6 one
 * written as IPv4), or the /64 network of its IPv6 address. A subscriber gets a whole /64 (often
 * more), so counting single IPv6 addresses would give one client billions of fresh counters.
 */
export function rateLimitKey(address: string): string {
  const plain = plainAddress(address);
  const withoutZone = plain.split('%')[0]!;
  if (!isIPv6(withoutZone)) return plain;
  const network = ipv6Bits(withoutZone) >> 64n;
  return `${[48n, 32n, 16n, 0n].map((shift) => ((network >> shift) & 0xffffn).toString(16)).join(':')}::/64`;
}
