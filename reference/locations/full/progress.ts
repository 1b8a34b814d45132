import cliProgress from 'cli-progress';

/** How the loader reports its phases; a terminal gets bars, a log gets one line per phase. */
export interface Progress {
  phase(name: string, total: number): void;
  update(done: number): void;
  done(): void;
}

/** How often a log hears how far a long phase is (a full-size release writes for tens of seconds). */
const LOG_EVERY_MS = 5_000;

export function logProgress(log: (line: string) => void, everyMs = LOG_EVERY_MS): Progress {
  let current = '';
  let started = 0;
  let total = 0;
  let said = 0;
  return {
    phase(name, phaseTotal) {
      current = name;
      total = phaseTotal;
      started = performance.now();
      said = started;
    },
    update(done) {
      const now = performance.now();
      if (now - said < everyMs) return;
      said = now;
      log(`geo catalog: ${current} ${done} of ${total} (${total > 0 ? Math.floor((done / total) * 100) : 0} %), ${((now - started) / 1000).toFixed(0)} s`);
    },
    done() {
      log(`geo catalog: ${current} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    },
  };
}

export function barProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  let bar: cliProgress.SingleBar | undefined;
  return {
    phase(name, total) {
      bar = new cliProgress.SingleBar(
        { stream, format: `${name.padEnd(18)} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}`, hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total, 0);
    },
    update(done) {
      bar?.update(done);
    },
    done() {
      bar?.stop();
      bar = undefined;
    },
  };
}

/** Bars on a terminal, log lines otherwise (service logs, CI). */
export function defaultProgress(log: (line: string) => void): Progress {
  return process.stderr.isTTY ? barProgress() : logProgress(log);
}
