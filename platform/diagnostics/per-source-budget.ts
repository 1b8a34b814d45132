import type { BoundedLog } from './bounded-log.js';

export interface PerSourceBudgetOptions<T> {
  /** Entries kept per source in each minute; the rest are dropped. */
  perMinute: number;
  sourceOf: (value: T) => string;
  /** Called with each dropped entry. */
  onDropped: () => void;
  /** Milliseconds since the epoch (a test gives its own clock). */
  now?: () => number;
}

/** Sources counted in one minute before the counts start over (a bound on memory, not a limit anyone meets). */
const MAX_SOURCES = 100_000;

/**
 * The log, keeping at most `perMinute` entries a minute from any one source, so a single caller
 * sending refusal after refusal cannot push everyone else's out of a store that keeps only the
 * newest entries. Counted in this process, per calendar minute.
 */
export function perSourceBudget<T>(log: BoundedLog<T>, options: PerSourceBudgetOptions<T>): BoundedLog<T> {
  const now = options.now ?? Date.now;
  let minute = -1;
  const counts = new Map<string, number>();
  return {
    ...log,
    append(value) {
      const current = Math.floor(now() / 60_000);
      if (current !== minute || counts.size >= MAX_SOURCES) {
        minute = current;
        counts.clear();
      }
      const source = options.sourceOf(value);
      const count = (counts.get(source) ?? 0) + 1;
      counts.set(source, count);
      if (count > options.perMinute) options.onDropped();
      else log.append(value);
    },
  };
}
