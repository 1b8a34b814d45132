export interface CaughtUpReportOptions {
  /** Events not yet applied across every projection; undefined while the projections are still starting. */
  totalLag(): Promise<number> | undefined;
  caughtUp(): void;
  checkFailed(error: unknown): void;
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
  return async function report() {
    if (checking) {
      checkAgain = true;
      return;
    }
    checking = true;
    try {
      do {
        checkAgain = false;
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
