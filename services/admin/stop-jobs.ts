import type { ExportJobs } from '../export/jobs.js';
import type { ReplayJobs } from '../replay/jobs.js';
import type { JobFollowers } from './job-followers.js';

/** How long a stopped job's follower has to read how it ended; the replay and export CLIs poll every 250 ms. */
const FOLLOWER_READ_MS = 1_000;

/**
 * For the service's shutdown: stops the replay and the export it runs for its callers, as a cancel
 * does, and waits for them. Closing the backends under them failed a replay half-way, leaving its
 * replay_… schemas, and could leave an export's partial file. A replay already swapping swaps (the
 * shutdown's deadline bounds the wait). Each is said in the log, as it is stopped and as it ended.
 * Run while the admin API and the owner socket still answer: they close only once a caller
 * following a stopped job has read how it ended (job-followers.ts), so the CLI or an operator's
 * script says the service stopped its job (and that nothing was left) rather than that the
 * service vanished. No new job is taken from here on.
 */
export async function stopJobsUnderWay(jobs: { replays: ReplayJobs; exports: ExportJobs; followers: JobFollowers }, log: (line: string) => void): Promise<void> {
  jobs.followers.refuseNewJobs();
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
  await jobs.followers.finalStatesRead(ended, FOLLOWER_READ_MS);
}
