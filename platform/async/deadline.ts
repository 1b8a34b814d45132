/** What `withinDeadline` answers when the work did not settle in time. */
export const PAST_DEADLINE = Symbol('past deadline');

/**
 * The work's result, or PAST_DEADLINE once `ms` have passed without it settling. The work goes on
 * (a promise cannot be cancelled); a failure after the deadline is swallowed, since nobody waits
 * for it any more. A failure before the deadline is thrown as is.
 */
export async function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T | typeof PAST_DEADLINE> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<typeof PAST_DEADLINE>((resolve) => {
    timer = setTimeout(() => resolve(PAST_DEADLINE), Math.max(0, ms));
    timer.unref();
  });
  work.catch(() => {});
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
