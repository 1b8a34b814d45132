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

/** The work's result; rejects with `late()` once `ms` have passed without it settling (see withinDeadline). */
export async function resultWithin<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  const result = await withinDeadline(work, ms);
  if (result === PAST_DEADLINE) throw late();
  return result;
}

/** The work's value, or why there is none within `ms` (it failed, or did not settle in time). Never rejects. */
export async function settledWithin<T>(work: Promise<T>, ms: number): Promise<{ ok: true; value: T } | { ok: false; why: string }> {
  try {
    return { ok: true, value: await resultWithin(work, ms, () => new Error(`no answer within ${ms} ms`)) };
  } catch (error) {
    return { ok: false, why: (error as Error).message };
  }
}
