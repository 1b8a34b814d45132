import { setTimeout as pause } from 'node:timers/promises';
import type { Config } from '../../platform/config/config.js';
import type { OwnerReply } from '../../platform/data-dir/owner-client.js';
import { ownerJobCalls, startOwnerJob, type OwnerJobEnvelope } from '../../platform/data-dir/owner-jobs.js';
import { ReplayInputError } from '../../platform/projection/point-in-time.js';
import type { RebuildProgress } from '../../platform/projection/rebuild.js';
import type { ReplayReport } from '../../platform/projection/replay.js';
import { ExitCode } from '../../platform/startup.js';
import { CommandFailedError } from '../admin/command-gateway.js';
import { ReplayCancelledError, type ReplayJob } from './jobs.js';
import type { KeptSchemas } from './kept.js';
import type { ReplayRequest } from './request.js';

/** How often the job is asked for its progress (for the bar; the replay itself does not wait on it). */
const POLL_MS = 250;

/** What the service's refusal means here: the caller's input (naming the option), or a failure carrying its exit code. */
function refusalOf(reply: OwnerReply<OwnerJobEnvelope<unknown>>): Error {
  const field = reply.body.extra?.field;
  if (reply.status === 400 && field) return new ReplayInputError(field, reply.body.message.replace(`${field}: `, ''));
  const busy = reply.status === 409 || reply.status === 503;
  return new CommandFailedError(`the service answered ${reply.status} ${reply.body.code}: ${reply.body.message}`, busy ? ExitCode.unavailable : ExitCode.failure);
}

/**
 * Runs the replay in the service that owns the embedded DATA_DIR (only it may open the database)
 * through its admin socket: starts the job, then follows it until its report. A refusal is a
 * CommandFailedError carrying the exit code. Once `signal` is aborted the job is cancelled in the
 * service and followed until it stops: the signal's reason is thrown, or the report returned when
 * the replay was already swapping (it is carried through).
 */
export async function replayThroughOwner(config: Config, request: ReplayRequest, onProgress: (progress: RebuildProgress) => void, signal?: AbortSignal): Promise<ReplayReport> {
  const call = ownerJobCalls<ReplayJob>(config.dataDir);
  const started = await startOwnerJob<ReplayJob>(config.dataDir, '/replays', request);
  if ('refusal' in started) throw refusalOf(started.refusal);
  let { job } = started;
  let cancelSent = false;
  while (job.state === 'running') {
    if (signal?.aborted && !cancelSent) {
      cancelSent = true;
      await call('DELETE', `/replays/${job.id}`).catch(() => {});
    }
    onProgress(job.progress);
    await pause(POLL_MS);
    const reply = await call('GET', `/replays/${job.id}`).catch((error: Error) => {
      // The service stopped (or was stopped) mid-replay: its report is lost with it, its schemas may remain.
      throw new CommandFailedError(`the service stopped answering during the replay (${error.message}); its replay_… schemas may be left behind (npm run replay -- --kept lists them, --drop removes them); run it again`, ExitCode.unavailable);
    });
    if (reply.status !== 200) {
      const said = (reply.body as { code?: unknown; message?: unknown } | undefined) ?? {};
      const answer = [reply.status, said.code, said.message].filter((part) => part !== undefined && part !== '').join(' ');
      throw new CommandFailedError(`the service lost the replay (answered ${answer}); its replay_… schemas may be left behind (npm run replay -- --kept lists them, --drop removes them); run it again`, ExitCode.unavailable);
    }
    job = reply.body.data.job!;
  }
  if (job.state === 'cancelled' && job.error?.service_stopped) {
    throw new CommandFailedError(`the replay was stopped: ${job.error.message}; run it again once the service is back`, ExitCode.unavailable);
  }
  if (job.state === 'cancelled') throw signal?.reason instanceof ReplayCancelledError ? signal.reason : new ReplayCancelledError('cancelled on the admin API');
  if (job.state === 'failed') {
    if (job.error?.option) throw new ReplayInputError(job.error.option, job.error.message);
    throw new CommandFailedError(`the replay failed in the service: ${job.error?.message}`, ExitCode.failure);
  }
  onProgress(job.progress);
  return job.report!;
}

/**
 * The kept replay schemas of the service that owns the embedded DATA_DIR (listed, or `drop`
 * dropped, through its admin socket): the names listed or dropped, and what each listed one holds.
 */
export async function keptThroughOwner(config: Config, drop?: string[]): Promise<KeptSchemas> {
  const call = ownerJobCalls<never>(config.dataDir);
  const reply = drop ? await call('POST', '/replays/drop', { schemas: drop }) : await call('GET', '/replays/kept');
  if (reply.status !== 200) {
    const refusal = refusalOf(reply);
    // The admin API names its body's field; here the names came from --drop.
    throw refusal instanceof ReplayInputError && refusal.option === 'schemas' ? new ReplayInputError('drop', refusal.message) : refusal;
  }
  const data = reply.body.data as { schemas?: string[]; about?: Record<string, string | null>; dropped?: string[] };
  return { names: (drop ? data.dropped : data.schemas) ?? [], about: drop ? {} : (data.about ?? {}) };
}
