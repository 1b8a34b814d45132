import type { OwnerSocket } from './owner-commands.js';
import type { ExportJobs } from '../export/jobs.js';
import type { ReplayJobs } from '../replay/jobs.js';

/** How long a stopped job's follower has to read how it ended; the replay and export CLIs poll every 250 ms. */
const FOLLOWER_READ_MS = 1_000;

/**
 * For the service's shutdown: stops the replay and the export it runs for its callers, as a cancel
 * does, and waits for them. Closing the backends under them failed a replay half-way, leaving its
 * replay_… schemas, and could leave an export's partial file. A replay already swapping swaps (the
 * shutdown's deadline bounds the wait). Each is said in the log, as it is stopped and as it ended.
 * The owner socket stays open until a CLI following a stopped job has read how it ended, so the
 * CLI says the service stopped its job (and that nothing was left) rather than that the service
 * vanished; it answers nothing else by then (refuseNewWork, called when the shutdown began).
 */
export async function stopJobsUnderWay(jobs: { replays: ReplayJobs; exports: ExportJobs }, ownerSocket: OwnerSocket, log: (line: string) => void): Promise<void> {
  ownerSocket.refuseNewWork();
  const stopping = [
    ['replay', jobs.replays.underWay(), jobs.replays.stop()],
    ['export', jobs.exports.underWay(), jobs.exports.stop()],
  ] as const;
  for (const [what, job] of stopping) if (job) log(`shutdown: stopping the ${what} ${job.id} under way`);
  const ended: string[] = [];
  for (const [what, , stopped] of stopping) {
    const job = await stopped;
    if (!job) continue;
    ended.push(job.id);
    log(`shutdown: the ${what} ${job.id} ended ${job.state}${job.error ? `: ${job.error.message}` : ''}`);
  }
  await ownerSocket.finalStatesRead(ended, FOLLOWER_READ_MS);
}
