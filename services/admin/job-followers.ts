import { shuttingDown } from '../../platform/http/request-guards.js';

/** How many job ids are remembered as followed (the job registries keep 20 each). */
const NOTED_JOBS = 100;

/**
 * Who follows the replays and exports a process runs for its callers, on its admin API and its
 * owner socket alike: a caller that started a job (202) or polled its state follows it. The
 * service's shutdown stops the jobs under way and then waits, briefly, until each followed one
 * has had its final state read, so the follower says its job was stopped by the service rather
 * than that the service vanished (its HTTP server or socket closed under the poll). From the
 * shutdown's start no new job is taken (503 SHUTTING_DOWN): it would be stopped at once.
 */
export interface JobFollowers {
  /** Throws 503 SHUTTING_DOWN once the shutdown has begun; a job start calls it first. */
  admitNewJob(): void;
  /** A job answered 202 to its caller. */
  started(id: string): void;
  /** A job's state answered to a poll: the final one once it has left `running`. */
  polled(job: { id: string; state: string }): void;
  /** From now on admitNewJob refuses. */
  refuseNewJobs(): void;
  /**
   * Resolves once each of the jobs `ids` that a caller follows has had its final state read, or
   * after `ms` (a follower that went away reads nothing more).
   */
  finalStatesRead(ids: readonly string[], ms: number): Promise<void>;
}

export function jobFollowers(): JobFollowers {
  let refusing = false;
  const followed = new Set<string>();
  const finalRead = new Set<string>();
  const note = (ids: Set<string>, id: string) => {
    ids.add(id);
    if (ids.size > NOTED_JOBS) ids.delete(ids.values().next().value!);
  };
  let onFinalRead = () => {};
  return {
    admitNewJob() {
      if (refusing) throw shuttingDown();
    },
    started: (id) => note(followed, id),
    polled(job) {
      note(followed, job.id);
      // A job leaves `running` once and for all: this answer carries its final state.
      if (job.state === 'running') return;
      note(finalRead, job.id);
      onFinalRead();
    },
    refuseNewJobs() {
      refusing = true;
    },
    finalStatesRead: (ids, ms) =>
      new Promise<void>((resolve) => {
        const waiting = () => ids.some((id) => followed.has(id) && !finalRead.has(id));
        if (!waiting()) return resolve();
        const timer = setTimeout(resolve, ms);
        onFinalRead = () => {
          if (waiting()) return;
          clearTimeout(timer);
          resolve();
        };
      }),
  };
}
