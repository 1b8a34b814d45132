/**
 * How long a projection counts as failing after its last error when no batch has been applied
 * since: a retry that succeeds on a log with nothing new applies nothing, so it would otherwise
 * count as failing until the next event came.
 */
const FAILING_FOR_MS = 30_000;

/** Whether each projection of a projector process is applying the log (its readiness). */
export interface ProjectionHealth {
  /** Every projection has joined the log: until then the check says they are starting. */
  started(): void;
  applied(projection: string): void;
  failed(projection: string, error: Error): void;
  /** Throws while the projections start, and names those that failed in the last 30 s and applied nothing since. */
  check(): void;
}

export function projectionHealth(now: () => number = Date.now): ProjectionHealth {
  const failing = new Map<string, { at: number; message: string }>();
  let running = false;
  return {
    started: () => {
      running = true;
    },
    applied: (projection) => failing.delete(projection),
    failed: (projection, error) => failing.set(projection, { at: now(), message: error.message }),
    check() {
      if (!running) throw new Error('starting: the projections are joining the log');
      const recent = [...failing].filter(([, failure]) => now() - failure.at < FAILING_FOR_MS);
      if (recent.length === 0) return;
      throw new Error(`failing, retried: ${recent.map(([projection, failure]) => `${projection} (${failure.message})`).join('; ')}`);
    },
  };
}
