import { SingleBar, Presets } from 'cli-progress';
import type { Runtime } from '../../../platform/runtime.js';

/** Sizes of a seeded data set; `--offers N` scales the rest in proportion. */
export interface SeedSize {
  developers: number;
  applicationsPerDeveloper: number;
  partners: number;
  offers: number;
}

export function seedSize(offers: number): SeedSize {
  return {
    offers,
    developers: Math.max(6, Math.ceil(offers / 50)),
    applicationsPerDeveloper: 4,
    partners: Math.max(3, Math.ceil(offers / 200)),
  };
}

export interface SeedContext {
  runtime: Runtime;
  size: SeedSize;
  /** Deterministic randomness: the same seed value gives the same data set. */
  random(): number;
  now(): Date;
  /** A progress bar for one phase; call tick(n) as events are appended, then done(). */
  progress(label: string, total: number): { tick(count?: number): void; done(): void };
  /** What earlier phases created, for later phases to refer to (e.g. application ids for links). */
  shared: Map<string, unknown>;
}

export { seededRandom } from '../../../platform/seeded-random.js';

/** How often a progress line is written off a terminal. */
const PROGRESS_LINE_EVERY_MS = 5_000;

/** Each phase's progress: a bar on a terminal, else a line every PROGRESS_LINE_EVERY_MS and one at its end, or none. */
export function progressBars(shown: 'bars' | 'lines' | 'none', log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): SeedContext['progress'] {
  return (label, total) => {
    if (shown === 'none') return { tick() {}, done() {} };
    if (shown === 'lines') {
      // Off a terminal a bar is unreadable: a line every few seconds, and one at the end.
      let count = 0;
      let saidAt = performance.now();
      return {
        tick: (more = 1) => {
          count += more;
          if (performance.now() - saidAt < PROGRESS_LINE_EVERY_MS) return;
          saidAt = performance.now();
          log(`${label.trim()}: ${count} of ${total} events`);
        },
        done: () => log(`${label.trim()}: ${count} of ${total} events, done`),
      };
    }
    const bar = new SingleBar({ format: `${label.padEnd(14)} {bar} {value}/{total} events  {eta_formatted} left`, hideCursor: true }, Presets.shades_classic);
    bar.start(total, 0);
    return { tick: (count = 1) => bar.increment(count), done: () => bar.stop() };
  };
}
