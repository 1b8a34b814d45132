/**
 * Cached JSON as UTF-8, packed back to back into large chunks. Buffer.from of a few hundred
 * characters takes its bytes from the shared 8 KB pool after reserving four bytes per character,
 * which left slabs a third empty, and a cached slice kept alive the response buffers sharing its
 * slab.
 */
const CHUNK = 256 * 1024;

/** Texts to UTF-8 bytes for caches that keep them as long as the index they render. */
export class BytePacker {
  private chunk = Buffer.allocUnsafeSlow(0);
  private used = 0;
  bytes(text: string): Buffer {
    const length = Buffer.byteLength(text);
    // Rare (a deep path): bytes of its own.
    if (length > CHUNK / 16) return Buffer.from(text);
    if (length > this.chunk.length - this.used) {
      this.chunk = Buffer.allocUnsafeSlow(CHUNK);
      this.used = 0;
    }
    const start = this.used;
    this.used += this.chunk.write(text, start);
    return this.chunk.subarray(start, this.used);
  }
}
