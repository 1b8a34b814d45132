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

export function reusableBuffers(options: { keep: number; minBytes: number }): ReusableBuffers {
  const free: Buffer[] = [];
  return {
    acquire(bytes) {
      const last = free.length - 1;
      if (last >= 0 && free[last]!.length >= bytes) return free.pop()!;
      return Buffer.allocUnsafeSlow(Math.max(bytes, options.minBytes));
    },
    release(buffer) {
      if (free.length < options.keep) free.push(buffer);
    },
  };
}
