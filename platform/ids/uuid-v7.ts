import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/**
 * Random bytes for ids, drawn from a pool refilled in one call per 256 ids: the uuid package
 * asks the system for 16 bytes per id, and on the postback route that alone was 2% of the API
 * process's time.
 */
const POOL_BYTES = 16 * 256;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let taken = POOL_BYTES;

function random16(): Uint8Array {
  if (taken === POOL_BYTES) {
    randomFillSync(pool);
    taken = 0;
  }
  const bytes = pool.subarray(taken, taken + 16);
  taken += 16;
  return bytes;
}

/** The millisecond and sequence of the last id: ids of one process keep increasing, as the uuid package's own v7 keeps them. */
let lastMs = -Infinity;
let sequence = 0;

/** A new UUIDv7 (RFC 9562): millisecond time, then a sequence started at random each millisecond, then random bits. */
export function uuidV7(): string {
  const random = random16();
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    // 31 random bits, so the sequence has room to count up within the millisecond.
    sequence = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    sequence = (sequence + 1) | 0;
    // Wrapped: borrow the next millisecond rather than go backwards.
    if (sequence === 0) lastMs += 1;
  }
  return v7({ random, msecs: lastMs, seq: sequence });
}
