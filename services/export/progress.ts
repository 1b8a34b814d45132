import cliProgress from 'cli-progress';
import { etaText } from '../../platform/text/eta.js';

/** How an export reports how far it is. */
export interface ExportProgress {
  start(what: string, total: number): void;
  update(done: number): void;
  stop(): void;
}

export const silentProgress: ExportProgress = { start() {}, update() {}, stop() {} };

/**
 * A bar on stderr with rows/s and ETA; without a terminal (CI, a log file) the same line every
 * few seconds instead of a redrawn bar.
 */
export function barProgress(stream: NodeJS.WriteStream = process.stderr): ExportProgress {
  let bar: cliProgress.SingleBar | undefined;
  let started = 0;
  return {
    start(what, total) {
      started = performance.now();
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${what} [{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {time_left}`,
          hideCursor: true,
          noTTYOutput: true,
          notTTYSchedule: 5_000,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0, { rate: 0, time_left: etaText(total, 0) });
    },
    update(done) {
      const seconds = (performance.now() - started) / 1000;
      const rate = seconds > 0 ? done / seconds : 0;
      bar?.update(done, { rate: Math.round(rate), time_left: etaText((bar?.getTotal() ?? done) - done, rate) });
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}
