import { randomUUID } from 'node:crypto';
import { isAbsolute } from 'node:path';
import type { Runtime } from '../../platform/runtime.js';
import { exportEvents } from './export-events.js';
import { exportReadModel } from './export-read-model.js';
import { ExportInputError, flagFailure, parseExportFlags, type ExportFlags } from './options.js';
import type { ExportProgress } from './progress.js';

export interface ExportJob {
  id: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  started_at: string;
  /** What is exported, and how many of its items (events or rows) are through, of `total`. */
  progress: { what: string; done: number; total: number };
  result?: { rows: number; format: string; files: string[] };
  /**
   * Why it failed or was cancelled; with `flag` when the request was at fault (a --from past the
   * log's end), which `message` starts with; `service_stopped` when the service's shutdown stopped it.
   */
  error?: { message: string; flag?: string; service_stopped?: true };
}

/** An export is already running in this process. */
export class ExportBusyError extends Error {
  constructor(readonly running: string) {
    super(`an export is already running here (${running}); retry when it has finished`);
    this.name = 'ExportBusyError';
  }
}

/** How a job the service's shutdown stopped ended; a cancel asked for says `cancelled`. */
const SERVICE_STOPPED = 'the service stopped; the unfinished file was removed';

/** Finished jobs kept for their results. */
const KEPT_JOBS = 20;
const FLAG_NAMES: readonly (keyof ExportFlags)[] = ['topic', 'readModel', 'schema', 'from', 'to', 'type', 'format', 'out'];

/**
 * The export CLI's flags from a request body: text values of known flags only, and an absolute
 * --out (the service's working folder is not the caller's). Throws ExportInputError naming the flag.
 */
function flagsOf(input: unknown): ExportFlags {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new ExportInputError('--topic', 'the request is not an object of flags');
  const flags: ExportFlags = {};
  for (const [name, value] of Object.entries(input)) {
    if (!(FLAG_NAMES as string[]).includes(name)) throw new ExportInputError(`--${name}`, 'is not a flag of npm run export');
    if (typeof value !== 'string') throw new ExportInputError(`--${name}`, 'must be text');
    flags[name as keyof ExportFlags] = value;
  }
  if (flags.out !== undefined && !isAbsolute(flags.out)) throw new ExportInputError('--out', `${flags.out} must be an absolute path here (the service's working folder is not the caller's)`);
  return flags;
}

/**
 * Exports run by a service for the export CLI on the embedded default, where only the owner of
 * DATA_DIR may open the database (served on its owner socket only: the file is written on the
 * service's machine). One at a time per process; callers poll the job, and may cancel it (the
 * unfinished file is removed). The service's shutdown stops the one under way the same way.
 */
export function exportJobs(runtime: Runtime) {
  const jobs = new Map<string, { job: ExportJob; cancel: AbortController; settled: Promise<ExportJob> }>();
  let running: string | undefined;
  /** The abort's reason when the service stops the job (told apart from a cancel asked for). */
  const stopping = new Error('the service stopped');
  return {
    /** Starts an export; throws ExportInputError for a bad request, ExportBusyError while another runs. */
    start(input: unknown): ExportJob {
      const parsed = parseExportFlags(flagsOf(input));
      if (running) throw new ExportBusyError(running);
      const job: ExportJob = { id: randomUUID(), state: 'running', started_at: new Date().toISOString(), progress: { what: '', done: 0, total: 0 } };
      const cancel = new AbortController();
      const progress: ExportProgress = {
        start: (what, total) => (job.progress = { what, done: 0, total }),
        update: (done) => (job.progress.done = done),
        stop: () => {},
      };
      running = job.id;
      const exported =
        parsed.kind === 'events'
          ? exportEvents(runtime.eventLog, { ...parsed.request, topicPrefix: runtime.config.topicPrefix }, progress, cancel.signal)
          : exportReadModel(runtime.db, parsed.request, progress, cancel.signal);
      const settled = exported
        .then(
          (result) => Object.assign(job, { state: 'done', result: { rows: result.rows, format: parsed.request.format, files: result.files } }),
          (error: Error) => {
            if (cancel.signal.aborted) {
              const error = cancel.signal.reason === stopping ? { message: SERVICE_STOPPED, service_stopped: true } : { message: 'cancelled; the unfinished file was removed' };
              return Object.assign(job, { state: 'cancelled', error });
            }
            // A bound the log does not have is the request's fault too, named as the CLI names it.
            return Object.assign(job, { state: 'failed', error: flagFailure(error) ?? { message: error.message } });
          },
        )
        .finally(() => (running = undefined));
      jobs.set(job.id, { job, cancel, settled });
      for (const old of [...jobs.keys()].slice(0, Math.max(0, jobs.size - KEPT_JOBS))) jobs.delete(old);
      return job;
    },
    get: (id: string): ExportJob | undefined => jobs.get(id)?.job,
    /** The job once it is no longer running (done, failed or cancelled). */
    settled: (id: string): Promise<ExportJob> | undefined => jobs.get(id)?.settled,
    /** Stops a running export before its next batch; the job, or undefined when there is none by that id. */
    cancel(id: string): ExportJob | undefined {
      const entry = jobs.get(id);
      if (entry?.job.state === 'running') entry.cancel.abort(new Error('the export was cancelled'));
      return entry?.job;
    },
    /** The job under way, if any. */
    underWay: (): ExportJob | undefined => (running ? jobs.get(running)?.job : undefined),
    /**
     * For the service's shutdown: stops the job under way as a cancel does and resolves with it
     * once it has ended (its unfinished file removed); undefined when none ran.
     */
    async stop(): Promise<ExportJob | undefined> {
      const entry = running ? jobs.get(running) : undefined;
      if (!entry) return undefined;
      entry.cancel.abort(stopping);
      return entry.settled;
    },
  };
}

export type ExportJobs = ReturnType<typeof exportJobs>;
