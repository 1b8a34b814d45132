import type { Server } from 'node:http';
import { isIPv6, type Socket } from 'node:net';
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

/**
 * Reads each connection's peer address as it is accepted, so Node keeps it: it asks the socket
 * only when first read, and a socket its client has reset has none left. request.ip (the rate
 * limits' key, a postback's source) was undefined for a request reset before its hooks ran: a
 * TypeError, logged and counted as a 500 of ours. A connection reset before it was even accepted
 * has no address to read: it is closed at once, as nobody is there to read an answer (the API
 * listens on TCP only, where every connected socket has one).
 */
export function keepPeerAddresses(server: Server): void {
  server.on('connection', (socket: Socket) => {
    if (socket.remoteAddress === undefined) socket.destroy();
  });
}
