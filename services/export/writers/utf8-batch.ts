/** Where a batch starts; it grows when a batch needs more. */
const INITIAL_BYTES = 4 * 1024 * 1024;

/**
 * A batch of text lines encoded as UTF-8 straight into one reused buffer, handed over as one copy.
 * Concatenating a batch into one string first costs more than the encoding itself: the string is
 * rebuilt as it grows, and a single non-ASCII line makes all of it two bytes a character.
 */
export interface Utf8Batch {
  add(line: string): void;
  /** The bytes added since the last take, in a buffer of their own (the scratch buffer is reused). */
  take(): Buffer;
}

export function utf8Batch(): Utf8Batch {
  let scratch = Buffer.allocUnsafe(INITIAL_BYTES);
  let used = 0;
  return {
    add(line) {
      // A UTF-16 code unit takes at most 3 bytes in UTF-8.
      const room = line.length * 3;
      if (scratch.length - used < room) {
        const bigger = Buffer.allocUnsafe(Math.max(scratch.length * 2, used + room));
        scratch.copy(bigger, 0, 0, used);
        scratch = bigger;
      }
      used += scratch.write(line, used);
    },
    take() {
      const bytes = Buffer.from(scratch.subarray(0, used));
      used = 0;
      return bytes;
    },
  };
}
