import type { Runtime } from '../../platform/runtime.js';

/**
 * Resolves when this process hears that it may have missed projector commits (its listening
 * session dropped), the moment every in-process cache is emptied. Call it before breaking the
 * connection, await it after.
 */
export async function nextNotificationGap(runtime: Pick<Runtime, 'watermarks'>): Promise<void> {
  const watermarks = await runtime.watermarks();
  return new Promise<void>((resolve) => {
    const stop = watermarks.onApplied((position) => {
      if (position === undefined) {
        stop();
        resolve();
      }
    });
  });
}
