/**
 * Starts every part at once and resolves with them in the given order. When one fails to start,
 * the ones that did are stopped (after every start has settled, so none is left running behind
 * the caller's back) and the first failure is thrown.
 */
export async function startAll<T extends { stop(): Promise<void> }>(starts: (() => Promise<T>)[]): Promise<T[]> {
  const settled = await Promise.allSettled(starts.map((start) => start()));
  const started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await Promise.allSettled(started.map((part) => part.stop()));
    throw failed.reason;
  }
  return started;
}
