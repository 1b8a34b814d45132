import { statSync } from 'node:fs';
import { setTimeout as pause } from 'node:timers/promises';
import type { Config } from '../../platform/config/config.js';
import { leftToTheInterrupt } from '../../platform/cli/on-interrupt.js';
import { ownerJobCalls, startOwnerJob } from '../../platform/data-dir/owner-jobs.js';
import type { ExportJob } from './jobs.js';
import { ExportInputError, type ExportFlags } from './options.js';
import type { ExportProgress } from './progress.js';
import { removeUnfinished } from './writers/file.js';

/** The service could not run the export, or lost it; `unavailable` when a retry may succeed. */
export class ExportThroughOwnerError extends Error {
  constructor(message: string, readonly unavailable: boolean) {
    super(message);
    this.name = 'ExportThroughOwnerError';
  }
}

/** How often the job is asked how far it is (for the bar; the export does not wait on it). */
const POLL_MS = 250;
/** How long Ctrl-C waits for the export it stops to end (a write to a disk or pipe that does not take it may never). */
export const STOP_WAIT_MS = 2_000;

/** The message of an ExportInputError without its flag (the error puts it back in front). */
const detailOf = (message: string, flag: string) => (message.startsWith(`${flag}: `) ? message.slice(flag.length + 2) : message);

/**
 * Runs the export in the service that owns the embedded DATA_DIR (only it may open the database)
 * through its owner socket: starts the job with the CLI's flags (`out` absolute), then follows
 * it to its result. `onCancel` is handed, before the job is asked for, a function that cancels it
 * (for Ctrl-C: once the service has answered the start, so a Ctrl-C during it still stops the
 * export), follows it until it ends, and says whether the service had finished the file. A refusal
 * of a flag is an ExportInputError, as when the CLI checks it itself.
 */
export async function exportThroughOwner(
  config: Config,
  flags: ExportFlags,
  progress: ExportProgress,
  onCancel: (cancel: () => Promise<boolean>) => void,
): Promise<{ rows: number; format: string; files: string[] }> {
  const call = ownerJobCalls<ExportJob>(config.dataDir);
  const startedAtMs = Date.now();
  const starting = startOwnerJob<ExportJob>(config.dataDir, '/exports', flags);
  let cancelling = false;
  onCancel(async () => {
    cancelling = true;
    const answer = await starting.catch(() => undefined);
    if (!answer || 'refusal' in answer) return false;
    const id = answer.job.id;
    let job = (await call('DELETE', `/exports/${id}`)).body.data.job;
    // An export moving its file into place when the cancel came completes it: followed until it ends.
    for (const until = Date.now() + STOP_WAIT_MS; job?.state === 'running' && Date.now() < until; ) {
      await pause(POLL_MS / 5);
      job = (await call('GET', `/exports/${id}`)).body.data.job;
    }
    return job?.state === 'done';
  });
  const started = await starting;
  if (cancelling) return leftToTheInterrupt();
  if ('refusal' in started) {
    const reply = started.refusal;
    const flag = reply.body.extra?.field;
    if (reply.status === 400 && flag) throw new ExportInputError(flag, detailOf(reply.body.message, flag));
    throw new ExportThroughOwnerError(`the service answered ${reply.status} ${reply.body.code}: ${reply.body.message}`, reply.status === 409 || reply.status === 503);
  }
  let { job } = started;
  const id = job.id;
  let barShown = false;
  while (job.state === 'running') {
    if (!barShown && job.progress.what !== '') {
      progress.start(job.progress.what, job.progress.total);
      barShown = true;
    }
    if (barShown) progress.update(job.progress.done);
    await pause(POLL_MS);
    // A service that stopped (or restarted) mid-export left an unfinished file and no job to ask about.
    const lost = (why: string) => {
      removeUnfinished(flags.out!);
      // The file appears only once complete: one written since this export started is its result,
      // finished just before the service stopped (the answer saying so was what got lost).
      if ((statSync(flags.out!, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= startedAtMs) {
        return new ExportThroughOwnerError(`the service ${why} just after it had finished the export: ${flags.out} is complete (a file appears there only when finished), its row count is not known here`, true);
      }
      return new ExportThroughOwnerError(`the service ${why} during the export; nothing was written at ${flags.out}: run it again`, true);
    };
    const reply = await call('GET', `/exports/${id}`).catch((error: Error) => {
      throw lost(`stopped answering (${error.message})`);
    });
    if (cancelling) return leftToTheInterrupt();
    if (reply.status !== 200) throw lost(`lost the export (${reply.status} ${reply.body.code})`);
    job = reply.body.data.job!;
  }
  if (barShown) {
    progress.update(job.progress.done);
    progress.stop();
  }
  if (job.state !== 'done') {
    const { message = job.state, flag, service_stopped } = job.error ?? {};
    if (service_stopped) throw new ExportThroughOwnerError(`the export was stopped: ${message}; run it again once the service is back`, true);
    if (flag) throw new ExportInputError(flag, detailOf(message, flag));
    throw new ExportThroughOwnerError(`the export failed in the service: ${message}`, false);
  }
  return job.result!;
}
