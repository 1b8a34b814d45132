import { isIPv4, isIPv6 } from 'node:net';
import { ipv4Bits, ipv6Bits } from '../../platform/net/ip-text.js';

export type CidrCheck = { ok: true; cidr: string } | { ok: false; message: string };

/** IPv6 text as RFC 5952 writes it: lower case, no leading zeros, the longest run of two or more zero groups as "::". */
function formatIpv6(bits: bigint): string {
  const groups: bigint[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push((bits >> shift) & 0xffffn);
  // An IPv4-mapped address keeps its dotted tail (::ffff:192.0.2.1).
  if (groups.slice(0, 5).every((group) => group === 0n) && groups[5] === 0xffffn) {
    return `::ffff:${[24n, 16n, 8n, 0n].map((shift) => (bits >> shift) & 0xffn).join('.')}`;
  }
  let best = { at: -1, length: 1 };
  for (let at = 0; at < 8; ) {
    let end = at;
    while (end < 8 && groups[end] === 0n) end += 1;
    if (end - at > best.length) best = { at, length: end - at };
    at = end === at ? at + 1 : end;
  }
  const text = groups.map((group) => group.toString(16));
  if (best.at < 0) return text.join(':');
  return `${text.slice(0, best.at).join(':')}::${text.slice(best.at + best.length).join(':')}`;
}

function formatNetwork(bits: bigint, v4: boolean, prefix: number): string {
  if (v4) return `${[24n, 16n, 8n, 0n].map((shift) => (bits >> shift) & 0xffn).join('.')}/${prefix}`;
  return `${formatIpv6(bits)}/${prefix}`;
}

/**
 * Checks one allowlist entry: an IPv4 or IPv6 network in CIDR notation whose host bits are zero.
 * A bare address means that one host (/32 or /128). Returns the network in one canonical text
 * (RFC 5952 for IPv6, explicit prefix), so two spellings of one network are one entry: Postgres
 * compares them as cidr values, and a repeat the command let through would stop the projection.
 */
export function checkCidr(entry: string): CidrCheck {
  const [address = '', prefixText, ...rest] = entry.trim().split('/');
  const v4 = isIPv4(address);
  if (rest.length > 0 || (!v4 && (!isIPv6(address) || address.includes('%')))) {
    return { ok: false, message: `"${entry}" is not an IPv4 or IPv6 address or CIDR network` };
  }
  const width = v4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return { ok: false, message: `"${entry}" has an invalid prefix length` };
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (prefix > width) return { ok: false, message: `"${entry}" has a prefix longer than ${width} bits` };
  const bits = v4 ? ipv4Bits(address) : ipv6Bits(address);
  const hostMask = (1n << BigInt(width - prefix)) - 1n;
  if ((bits & hostMask) !== 0n) {
    return { ok: false, message: `"${entry}" has host bits set; the network is ${formatNetwork(bits & ~hostMask, v4, prefix)}` };
  }
  return { ok: true, cidr: formatNetwork(bits, v4, prefix) };
}
