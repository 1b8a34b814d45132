import type { TopicPartitionOffset } from '../events/event-log.js';
import type { Watermarks } from './watermarks.js';

/** At most this many appends are followed at once: every waiter is checked on each commit. */
const MAX_FOLLOWED = 64;
/** A sample still unapplied after this long is recorded at this long (a stalled projector shows). */
const FOLLOW_TIMEOUT_MS = 10_000;

/**
 * Measures append → applied for a writer that does not wait for it (Query answers once its serves
 * are logged): each append is followed to its projector commit in the background, up to
 * MAX_FOLLOWED at once (beyond that an append is not sampled), and `observe` gets the seconds.
 */
export function appliedLatencySampler(watermarks: Pick<Watermarks, 'awaitApplied'>, observe: (seconds: number) => void) {
  let followed = 0;
  return (projection: string, appended: TopicPartitionOffset[], appendStarted: number) => {
    if (followed >= MAX_FOLLOWED) return;
    followed += 1;
    void watermarks
      .awaitApplied(projection, appended, FOLLOW_TIMEOUT_MS)
      .then(() => observe((performance.now() - appendStarted) / 1000), () => {})
      .finally(() => {
        followed -= 1;
      });
  };
}
