/**
 * Runs `work` while calling `heartbeat` every `intervalMs`, so a consumer group keeps a member
 * whose batch takes longer than its session (a lock wait, a slow COPY): kafkajs heartbeats only
 * between batches by itself. A failed heartbeat is left to the consumer's own heartbeat after the
 * batch, which rejoins the group if it must; `work`'s result or failure is passed on as it is.
 */
export async function heartbeatWhile<T>(heartbeat: () => Promise<void>, intervalMs: number, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => void heartbeat().catch(() => {}), intervalMs);
  // The batch's own work keeps the process up while it runs; the timer never does.
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
