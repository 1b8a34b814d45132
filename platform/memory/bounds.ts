import { getHeapStatistics } from 'node:v8';

/**
 * The default bound of the served-card cache, derived from the memory the process may use.
 *
 * The served-card cache keeps its cards outside the JavaScript heap (typed arrays), so
 * `--max-old-space-size` does not bound it: a container's memory limit does, by killing the
 * process. With the full location catalog an API process holds about 470 MB before any card is
 * kept, and 500,000 cards add about 120 MB more (240 MB while the older half is replaced), which
 * a 512 MB container did not survive. So the default is a share of the smaller of the container's
 * limit (cgroup, `process.constrainedMemory`) and the heap limit, up to the former fixed 500,000.
 */

/** Bytes a kept card takes, room reserved for more cards included (measured: 120 MB for 500,000). */
export const INSTANCE_CACHE_BYTES_PER_CARD = 256;
/** The most cards kept by default (a larger machine may set INSTANCE_CACHE_ENTRIES higher). */
export const INSTANCE_CACHE_MAX_DEFAULT = 500_000;
/** Share of the process's memory the card cache may take by default. */
export const INSTANCE_CACHE_MEMORY_SHARE = 1 / 16;

/** No limit: what cgroup v1 and Node report for an unconstrained process is 2^63 or more, or 0. */
const UNLIMITED = 2 ** 62;

/** The memory this process may use: the smaller of its container's limit and its heap limit. */
export function processMemoryLimit(heapLimit = getHeapStatistics().heap_size_limit, constrained = process.constrainedMemory?.() ?? 0): number {
  return constrained > 0 && constrained < UNLIMITED ? Math.min(heapLimit, constrained) : heapLimit;
}

/** INSTANCE_CACHE_ENTRIES when unset: a sixteenth of `memoryLimit` in cards, at most 500,000, at least 1,000. */
export function defaultInstanceCacheEntries(memoryLimit = processMemoryLimit()): number {
  const cards = Math.floor((memoryLimit * INSTANCE_CACHE_MEMORY_SHARE) / INSTANCE_CACHE_BYTES_PER_CARD);
  return Math.max(1_000, Math.min(INSTANCE_CACHE_MAX_DEFAULT, cards));
}

