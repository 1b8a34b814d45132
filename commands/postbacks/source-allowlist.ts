import { BlockList, isIP } from 'node:net';
import { plainAddress } from '../../platform/net/ip-text.js';
import type { Partner } from '../../projections/partners/queries.js';
import { memoized } from '../../platform/cache/bounded-memo.js';

/**
 * Whether an address is in a partner's allowlist (canonical CIDRs, as partner:configure stores
 * them). Each family is matched against its own networks: an IPv4 caller is admitted by an IPv4
 * network, or by an IPv4-mapped one (`::ffff:192.0.2.0/120`, which names IPv4 addresses), never by
 * an IPv6 network that merely contains the mapped range (`::/0` means every IPv6 address, as a
 * firewall reads it, not every address). Node's BlockList alone would let `::/0` admit IPv4.
 * Addresses come as the route gives them: IPv4-mapped IPv6 already written as IPv4.
 */
export function sourceAllowlist(networks: readonly string[]): (address: string) => boolean {
  const v4 = new BlockList();
  const v6 = new BlockList();
  for (const network of networks) {
    const [base = '', prefixText] = network.split('/');
    const plain = plainAddress(base);
    if (isIP(base) === 4) v4.addSubnet(base, Number(prefixText ?? 32), 'ipv4');
    else if (plain !== base && Number(prefixText ?? 128) >= 96) v4.addSubnet(plain, Number(prefixText ?? 128) - 96, 'ipv4');
    else v6.addSubnet(base, Number(prefixText ?? 128), 'ipv6');
  }
  return (address) => {
    const family = isIP(address);
    if (family === 4) return v4.check(address, 'ipv4');
    return family === 6 && v6.check(address, 'ipv6');
  };
}

/** Per partner state (partners come from a cache that hands out a new object when one changes). */
interface Allowlist {
  admits: (address: string) => boolean;
  /** Answers by source address: a partner posts from a few, and each check builds a SocketAddress. */
  decided: Map<string, boolean>;
}
const allowlists = new WeakMap<Partner, Allowlist>();
/** Addresses remembered per partner before the answers start over. */
const MAX_DECIDED_ADDRESSES = 1_024;

/** Whether `partner`'s allowlist admits `address`, each partner's answers remembered by address. */
export function partnerAdmits(partner: Partner, address: string): boolean {
  let allowlist = allowlists.get(partner);
  if (!allowlist) {
    allowlist = { admits: sourceAllowlist(partner.source_ip_allowlist), decided: new Map() };
    allowlists.set(partner, allowlist);
  }
  return memoized(allowlist.decided, MAX_DECIDED_ADDRESSES, address, allowlist.admits);
}
