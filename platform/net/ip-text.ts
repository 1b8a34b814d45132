/** `::ffff:192.0.2.1` (an IPv4 client on a dual-stack socket): its dotted part. */
const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** An address as its client is: an IPv4-mapped IPv6 address written as the IPv4 one, any other as it is. */
export function plainAddress(address: string): string {
  return IPV4_MAPPED.exec(address)?.[1] ?? address;
}

/** A dotted IPv4 address as a 32-bit number. */
export function ipv4Bits(address: string): bigint {
  return address.split('.').reduce((bits, part) => (bits << 8n) | BigInt(Number(part)), 0n);
}

/** An IPv6 address (valid, without a zone) as a 128-bit number; an embedded IPv4 tail counts as two groups. */
export function ipv6Bits(address: string): bigint {
  let text = address.toLowerCase();
  const dotted = text.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const v4 = ipv4Bits(dotted[2]!);
    text = `${dotted[1]}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(parseInt(group, 16)), 0n);
}
