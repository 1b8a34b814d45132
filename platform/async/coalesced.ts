/**
 * `run`, shared by every call made while it is under way, and started afresh by the first call
 * after it ends: at most one run is under way however many callers ask at once, and each answer
 * comes from a run that was under way (or started) when it was asked for; nothing is kept after.
 */
export function coalesced<T>(run: () => Promise<T>): () => Promise<T> {
  let current: Promise<T> | undefined;
  return () => {
    if (current !== undefined) return current;
    const started = run();
    current = started;
    const done = () => {
      if (current === started) current = undefined;
    };
    started.then(done, done);
    return started;
  };
}
