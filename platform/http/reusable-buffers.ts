/**
 * Large answer buffers used again once their response is sent, instead of a fresh allocation per
 * answer: a fresh buffer of tens of kilobytes is memory the process may first have to fault in,
 * which at times cost more than building the answer (measured on the instance route).
 */
export interface ReusableBuffers {
  /** A buffer of at least `bytes`; hand it back with release() once nothing reads it any more. */
  acquire(bytes: number): Buffer;
  release(buffer: Buffer): void;
}

/** `keep` buffers at most, each at least `minBytes`; a buffer over `maxBytes` (a rare large answer) is not kept. */
export function reusableBuffers(options: { keep: number; minBytes: number; maxBytes: number }): ReusableBuffers {
  const free: Buffer[] = [];
  return {
    acquire(bytes) {
      const last = free.length - 1;
      if (last >= 0 && free[last]!.length >= bytes) return free.pop()!;
      return Buffer.allocUnsafeSlow(Math.max(bytes, options.minBytes));
    },
    release(buffer) {
      if (free.length < options.keep && buffer.length <= options.maxBytes) free.push(buffer);
    },
  };
}
