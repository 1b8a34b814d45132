/**
 * Polls a condition until it holds or the deadline passes: synchronization on an observable
 * state, never on elapsed time alone. `abandon` is asked every round: an error it returns ends
 * the wait at once (e.g. the process being waited for has exited).
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; intervalMs?: number; what?: string; abandon?: () => Error | undefined } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const result = await probe();
      if (result !== undefined && result !== false) return result;
    } catch (error) {
      lastError = error;
    }
    const reason = options.abandon?.();
    if (reason) throw reason;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
  throw new Error(`timed out waiting for ${options.what ?? 'condition'}${lastError ? `: ${String(lastError)}` : ''}`);
}
