/**
 * How long a projection counts as failing after its last error when no batch has been applied
 * since: a retry that succeeds on a log with nothing new applies nothing, so it would otherwise
 * count as failing until the next event came.
 */
const FAILING_FOR_MS = 30_000;
/**
 * How long a projection with events to apply may go without applying a batch before it counts as
 * stalled: batches commit within seconds, while a session that stopped answering holds its
 * projection, with no error, for as long as DATABASE_QUERY_TIMEOUT_MS (60 s).
 */
const STALLED_AFTER_MS = 15_000;

/** Events each projection has still to apply. */
export type LagOf = () => Promise<Map<string, number>>;

/** Whether each projection of a projector process is applying the log (its readiness). */
export interface ProjectionHealth {
  /** Every projection has joined the log: until then the check says they are starting. */
  started(lagOf: LagOf): void;
  applied(projection: string): void;
  failed(projection: string, error: Error): void;
  /**
   * Throws while the projections start, naming those that failed in the last 30 s and applied
   * nothing since, and those that had events to apply at every check for 15 s and applied none.
   */
  check(): Promise<void>;
}

export function projectionHealth(now: () => number = Date.now): ProjectionHealth {
  const failing = new Map<string, { at: number; message: string }>();
  const lastApplied = new Map<string, number>();
  /**
   * Since when each projection has had events to apply, as checks saw it: a projection idle for
   * minutes that was just handed an event is not stalled (readiness flapped to 503 that way
   * after a broker came back: "applied none for 50 s", for an event a second old). A batch
   * applied ends it too: checks far apart would otherwise count from before the projection caught up.
   */
  const behindSince = new Map<string, number>();
  let running: { at: number; lagOf: LagOf } | undefined;
  return {
    started: (lagOf) => {
      running = { at: now(), lagOf };
    },
    applied: (projection) => {
      failing.delete(projection);
      behindSince.delete(projection);
      lastApplied.set(projection, now());
    },
    failed: (projection, error) => failing.set(projection, { at: now(), message: error.message }),
    async check() {
      if (!running) throw new Error('starting: the projections are joining the log');
      const recent = [...failing].filter(([, failure]) => now() - failure.at < FAILING_FOR_MS);
      if (recent.length > 0) throw new Error(`failing, retried: ${recent.map(([projection, failure]) => `${projection} (${failure.message})`).join('; ')}`);
      const { at: startedAt, lagOf } = running;
      const lags = await lagOf();
      const checkedAt = now();
      const stalled = [...lags].flatMap(([projection, lag]) => {
        if (lag === 0) {
          behindSince.delete(projection);
          return [];
        }
        if (!behindSince.has(projection)) behindSince.set(projection, checkedAt);
        const idleMs = checkedAt - Math.max(lastApplied.get(projection) ?? startedAt, behindSince.get(projection)!);
        return idleMs >= STALLED_AFTER_MS ? [`${projection} has ${lag} events to apply and applied none for ${Math.floor(idleMs / 1000)} s`] : [];
      });
      if (stalled.length > 0) throw new Error(`stalled: ${stalled.join('; ')}`);
    },
  };
}
