import { randomUUID } from 'node:crypto';
import { pointInTimeBounds, ReplayInputError } from '../../platform/projection/point-in-time.js';
import type { RebuildProgress } from '../../platform/projection/rebuild.js';
import { replay, type ReplayReport } from '../../platform/projection/replay.js';
import type { Runtime } from '../../platform/runtime.js';
import { replayPace, type ReplayPace } from './progress.js';
import { describedKeptSchemas } from '../../platform/projection/replay-schema.js';
import { dropKeptSchemas, dropNamesOf, keptSchemasOf } from './kept.js';
import { dropRequestNames, resolveReplayRequest } from './request.js';

export interface ReplayJob {
  id: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  started_at: string;
  /** Events applied of those to reach, with events/s since the start, lag and ETA. */
  progress: RebuildProgress & ReplayPace;
  report?: ReplayReport;
  /**
   * Why it failed or was cancelled; `option` when the request was at fault (an --until past the
   * log's end), `service_stopped` when the service's shutdown stopped it (no cancel was asked for).
   */
  error?: { message: string; option?: string; service_stopped?: true };
}

/** A replay is already running in this process. */
export class ReplayBusyError extends Error {
  constructor(readonly running: string) {
    super(`a replay is already running here (${running}); retry when it has finished`);
    this.name = 'ReplayBusyError';
  }
}

/** What a replay cancelled before its swap leaves: nothing. */
const NOTHING_LEFT = 'before the swap: nothing was swapped and its replay schemas were dropped';

/** Why a cancelled replay stopped; its job's error message. */
const REPLAY_CANCELLED = `cancelled ${NOTHING_LEFT}`;

/** The abort of a replay its service's shutdown stopped; its message is the job's error (the job is cancelled). */
class ServiceStoppedError extends Error {
  constructor() {
    super(`the service stopped ${NOTHING_LEFT}`);
  }
}

/** A replay stopped by its caller (Ctrl-C of the CLI, or a cancel on the admin API) before its swap. */
export class ReplayCancelledError extends Error {
  constructor(readonly signal: string) {
    super(`replay interrupted (${signal}) ${NOTHING_LEFT}`);
    this.name = 'ReplayCancelledError';
  }
}

/** Finished jobs kept for their reports. */
const KEPT_JOBS = 20;

/** A job's progress without the step it was on. */
function withoutStep({ step: _finished, ...progress }: ReplayJob['progress']): ReplayJob['progress'] {
  return progress;
}

/**
 * Replays run by a service for its callers (the admin API, and the admin socket the replay CLI
 * uses on the embedded default, where only the owner of DATA_DIR may open the database). One at
 * a time per process; callers poll the job for its progress and report, and may cancel it (a
 * replay already swapping is carried through: the job then ends done, swapped). The service's
 * shutdown stops the one under way the same way, so the backends are not closed under it.
 */
export function replayJobs(runtime: Runtime) {
  const jobs = new Map<string, ReplayJob>();
  const cancels = new Map<string, AbortController>();
  /** Per running job: its pace computed again for now (a replay waiting on its database applies nothing for a while). */
  const paces = new Map<string, () => void>();
  let running: string | undefined;
  /** The running job, once it is no longer running. */
  let settled: Promise<ReplayJob> | undefined;
  return {
    /**
     * Starts a replay; throws ReplayInputError for a bad request (a point in time the log cannot
     * give included, as the CLI refuses it before it starts), ReplayBusyError while another runs.
     */
    async start(input: unknown): Promise<ReplayJob> {
      const options = resolveReplayRequest(input);
      if (running) throw new ReplayBusyError(running);
      if (options.pointInTime) await pointInTimeBounds(runtime.eventLog, options.projections, options.pointInTime, options.explicit ?? false);
      if (running) throw new ReplayBusyError(running);
      const startedAt = performance.now();
      const job: ReplayJob = {
        id: randomUUID(),
        state: 'running',
        started_at: new Date().toISOString(),
        progress: { applied: 0, target: 0, events_per_second: 0, lag: 0, eta_seconds: null },
      };
      let latest: RebuildProgress = { applied: 0, target: 0 };
      const pace = () => {
        job.progress = { ...latest, ...replayPace(latest, (performance.now() - startedAt) / 1000) };
      };
      const onProgress = (progress: RebuildProgress) => {
        latest = progress;
        pace();
      };
      paces.set(job.id, pace);
      const cancel = new AbortController();
      jobs.set(job.id, job);
      cancels.set(job.id, cancel);
      running = job.id;
      for (const old of [...jobs.keys()].slice(0, Math.max(0, jobs.size - KEPT_JOBS))) jobs.delete(old);
      settled = replay(runtime.db, runtime.eventLog, { ...options, onProgress, signal: cancel.signal, unansweredDatabaseMs: runtime.config.databaseUnansweredMs }).then(
        // Done is no step: the last one (comparing, swapping) is over.
        (report) => Object.assign(job, { state: 'done', report, progress: withoutStep(job.progress) }),
        (error: Error) =>
          cancel.signal.aborted && error === cancel.signal.reason
            // Said as the abort said it: a cancel asked for, or the service stopping.
            ? Object.assign(job, { state: 'cancelled', error: { message: error.message, ...(error instanceof ServiceStoppedError && { service_stopped: true }) } })
            : Object.assign(job, { state: 'failed', error: { message: error.message, ...(error instanceof ReplayInputError ? { option: error.option } : {}) } }),
      ).finally(() => {
        running = undefined;
        settled = undefined;
        cancels.delete(job.id);
        paces.delete(job.id);
      });
      return job;
    },
    get(id: string): ReplayJob | undefined {
      // Read at each look, not only when a batch is applied: a stalled replay showed the pace of its last batch.
      paces.get(id)?.();
      return jobs.get(id);
    },
    /** Asks the running job to stop; the job as it stands (poll it until it is no longer running), undefined when unknown. */
    cancel(id: string): ReplayJob | undefined {
      cancels.get(id)?.abort(new Error(REPLAY_CANCELLED));
      return jobs.get(id);
    },
    /** The job under way, if any. */
    underWay: (): ReplayJob | undefined => (running ? jobs.get(running) : undefined),
    /**
     * For the service's shutdown: stops the job under way as a cancel does (one already swapping
     * swaps) and resolves with it once it has ended (its schemas dropped); undefined when none ran.
     */
    async stop(): Promise<ReplayJob | undefined> {
      if (!running) return undefined;
      cancels.get(running)?.abort(new ServiceStoppedError());
      return settled;
    },
    /** The schemas replays kept here, by name, with what each holds. */
    kept: async () => keptSchemasOf(await describedKeptSchemas(runtime.db)),
    /** Drops kept schemas (`{"schemas": "a,b"}` or a list); not while a replay runs here, since one of them may be its own. */
    async drop(input: unknown): Promise<string[]> {
      try {
        const names = dropNamesOf(dropRequestNames(input).join(','));
        if (running) throw new ReplayBusyError(running);
        return await dropKeptSchemas(runtime.db, names);
      } catch (error) {
        // Named by this input's field, not the command line's --drop.
        throw error instanceof ReplayInputError && error.option === 'drop' ? new ReplayInputError('schemas', error.message) : error;
      }
    },
  };
}

export type ReplayJobs = ReturnType<typeof replayJobs>;
