import cliProgress from 'cli-progress';
import type { RebuildProgress } from '../../platform/projection/rebuild.js';
import { durationText } from '../../platform/text/eta.js';

/** What a replay's progress says to a reader: events/s since the start, events still to apply, and the time left at that rate. */
export interface ReplayPace {
  events_per_second: number;
  lag: number;
  /** null until a rate is known. */
  eta_seconds: number | null;
}

export function replayPace(progress: RebuildProgress, elapsedSeconds: number): ReplayPace {
  const rate = elapsedSeconds > 0 ? progress.applied / elapsedSeconds : 0;
  const lag = Math.max(0, progress.target - progress.applied);
  return { events_per_second: Math.round(rate), lag, eta_seconds: rate > 0 ? Math.ceil(lag / rate) : null };
}

/** How often the bar's pace is computed again without news from the replay. */
const REFRESH_MS = 1_000;

/**
 * The replay's progress on stderr: events applied of those to reach, events/s since the start,
 * the lag (events still to apply) and the time left at that rate. Not a terminal (a log, CI): a line
 * every few seconds instead of a redrawn bar.
 */
export function replayProgressBar(stream: NodeJS.WriteStream = process.stderr, now: () => number = () => performance.now()) {
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{step} [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | lag {lag} | ETA {time_left}',
      hideCursor: true,
      noTTYOutput: !stream.isTTY,
      notTTYSchedule: 5_000,
    },
    cliProgress.Presets.shades_classic,
  );
  let startedAt: number | undefined;
  let last: (RebuildProgress & Partial<ReplayPace>) | undefined;
  let refresh: NodeJS.Timeout | undefined;
  const payload = (progress: RebuildProgress & Partial<ReplayPace>) => {
    // A replay the owner of DATA_DIR runs reports its own pace: this bar first sees it already
    // under way (or done), so a rate from the bar's own clock would be far too high.
    const pace: ReplayPace =
      progress.events_per_second !== undefined
        ? { events_per_second: progress.events_per_second, lag: Math.max(0, progress.target - progress.applied), eta_seconds: progress.eta_seconds ?? null }
        : replayPace(progress, (now() - startedAt!) / 1000);
    // Once the events are applied, the step under way (index builds, comparison, swap): the bar stays at 100 % meanwhile.
    return { step: progress.step ?? 'rebuilding', rate: pace.events_per_second, lag: pace.lag, time_left: durationText(pace.eta_seconds) };
  };
  return {
    update(progress: RebuildProgress & Partial<ReplayPace>) {
      if (progress.target === 0) return;
      last = progress;
      if (startedAt === undefined) {
        startedAt = now();
        bar.start(progress.target, progress.applied, payload(progress));
        // The pace is read again as time passes: a replay that stopped applying (a database that
        // stopped answering) showed the rate and ETA of its last batch for as long as it waited.
        refresh = setInterval(() => {
          if (last?.events_per_second === undefined) bar.update(last!.applied, payload(last!));
        }, REFRESH_MS);
        refresh.unref();
        return;
      }
      if (progress.target !== bar.getTotal()) bar.setTotal(progress.target);
      bar.update(progress.applied, payload(progress));
    },
    stop() {
      clearInterval(refresh);
      if (startedAt !== undefined) bar.stop();
    },
  };
}
