export interface CaughtUpReportOptions {
  /** Events not yet applied across every projection; undefined while the projections are still starting. */
  totalLag(): Promise<number> | undefined;
  caughtUp(): void;
  checkFailed(error: unknown): void;
  /**
   * Least time between two checks (a check costs Kafka admin calls and a query per projection;
   * under load batches commit many times a second). A batch applied meanwhile waits for the next.
   */
  minIntervalMs?: number;
}

/**
 * The projector's `caught_up` report: returns the function to call after every applied batch
 * (and once at start). One lag check runs at a time; a batch applied during a check asks for one
 * more. A check that fails (a dropped database session, a broker restarting) is reported and the
 * next batch checks again: the process must not die of a progress report. Never rejects.
 */
export function caughtUpReport(options: CaughtUpReportOptions): () => Promise<void> {
  let checking = false;
  let checkAgain = false;
  let lastCheckAt = Number.NEGATIVE_INFINITY;
  const minIntervalMs = options.minIntervalMs ?? 0;
  return async function report() {
    if (checking) {
      checkAgain = true;
      return;
    }
    checking = true;
    try {
      do {
        // Monotonic: a wall clock stepped back would hold the next check (and every report behind it) for the step.
        const wait = lastCheckAt + minIntervalMs - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        checkAgain = false;
        lastCheckAt = performance.now();
        const lag = options.totalLag();
        if (lag !== undefined && (await lag) === 0) options.caughtUp();
      } while (checkAgain);
    } catch (error) {
      options.checkFailed(error);
    } finally {
      checking = false;
    }
  };
}
