import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../platform/config/config.js';
import { ownerJobCalls, startOwnerJob } from '../../platform/data-dir/owner-jobs.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { ExitCode } from '../../platform/startup.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { commandExecutor } from '../../services/admin/command-executor.js';
import { jobFollowers, type JobFollowers } from '../../services/admin/job-followers.js';
import { serveCommandsOnOwnerSocket, type OwnerSocket } from '../../services/admin/owner-commands.js';
import { stopJobsUnderWay } from '../../services/admin/stop-jobs.js';
import { exportJobs, type ExportJobs } from '../../services/export/jobs.js';
import { ExportThroughOwnerError, exportThroughOwner } from '../../services/export/through-owner.js';
import { silentProgress } from '../../services/export/progress.js';
import { projections, startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { replayJobs, type ReplayJobs } from '../../services/replay/jobs.js';
import { replayThroughOwner } from '../../services/replay/through-owner.js';
import { postbackEvents } from '../support/postback-events.js';
import { waitFor } from '../support/wait-for.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';

/**
 * On the embedded default the replay and export CLIs run their job inside the service that owns
 * DATA_DIR and follow it on its owner socket. When the service shuts down it stops the job, and
 * the CLI must say so (exit 4, nothing left behind, run it again), not that the service vanished
 * and schemas "may be left behind": the socket stays open until the follower has read how its job
 * ended, and takes no new work meanwhile. The service's database is in this process here, so the
 * job is held by a transaction the test keeps open (the embedded database runs one at a time).
 */
describe('stopping the jobs a service runs for the CLIs on its owner socket', () => {
  const dir = dataDirWithCluster('offer-ledger-owner-jobs-');
  const out = mkdtempSync(join(tmpdir(), 'offer-ledger-owner-jobs-out-'));
  let config: Config;
  let runtime: Runtime;
  let projectors: RunningProjectors;
  let replays: ReplayJobs;
  let exports: ExportJobs;
  let followers: JobFollowers;
  let socket: OwnerSocket;
  const logged: string[] = [];

  beforeAll(async () => {
    config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
    runtime = await openRuntime(config, { role: 'service', redis: false });
    projectors = await startProjectors(runtime, {}, [ledgerProjection]);
    await runtime.eventLog.append('postbacks', postbackEvents(30));
    await awaitCaughtUp(runtime, [ledgerProjection], 30_000);
  });
  afterAll(async () => {
    await socket?.close();
    await projectors?.stop();
    await runtime?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  /** A fresh owner socket with its own job registries, as a starting service has. */
  async function serve() {
    replays = replayJobs(runtime);
    exports = exportJobs(runtime);
    followers = jobFollowers();
    socket = await serveCommandsOnOwnerSocket(runtime, commandExecutor(runtime, { projections }), { replays, exports, followers });
  }

  /** Holds every statement of the embedded database until the returned function is called. */
  async function holdDatabase(): Promise<() => Promise<void>> {
    let release!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const held = runtime.db.transaction(async () => {
      entered();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await inside;
    return async () => {
      release();
      await held;
    };
  }

  /** The service's shutdown as far as the socket: refuse new work, stop the jobs, then close it. */
  async function shutDown() {
    socket.refuseNewWork();
    await stopJobsUnderWay({ replays, exports, followers }, (line) => logged.push(line));
    await socket.close();
  }

  /**
   * Starts `follow` (a CLI's following of its job) on a fresh socket with the database held; once
   * `underWay` says the job runs, shuts down (and runs `meanwhile`), then lets the database go.
   * Resolves with what the follower threw once the shutdown has ended.
   */
  async function followedThroughShutdown(follow: () => Promise<unknown>, underWay: () => unknown, meanwhile: () => Promise<void> = async () => {}) {
    await serve();
    const release = await holdDatabase();
    let following: Promise<unknown>;
    let stopping: Promise<void>;
    try {
      following = follow().catch((error: unknown) => error);
      await waitFor(underWay, { what: 'the job to start in the service' });
      stopping = shutDown();
      await meanwhile();
    } finally {
      await release();
    }
    await stopping!;
    return following!;
  }

  it('a replay the shutdown stops: the CLI reads that the service stopped it (exit 4), no schema is left, and no new job is taken meanwhile', async () => {
    const error = await followedThroughShutdown(
      () => replayThroughOwner(config, { projections: ['ledger'] }, () => {}),
      () => replays.underWay(),
      async () => {
        // Asked once the shutdown began: refused, while the job's own state is still answered.
        const refused = await startOwnerJob(config.dataDir, '/replays', { projections: ['ledger'] });
        expect(refused).toMatchObject({ refusal: { status: 503, body: { code: 'SHUTTING_DOWN' } } });
        expect((await ownerJobCalls(config.dataDir)('GET', `/replays/${replays.underWay()!.id}`)).status).toBe(200);
      },
    );
    expect(error).toMatchObject({
      exitCode: ExitCode.unavailable,
      message: 'the replay was stopped: the service stopped before the swap: nothing was swapped and its replay schemas were dropped; run it again once the service is back',
    });
    expect(logged).toContainEqual(expect.stringMatching(/^shutdown: the replay \S+ ended cancelled: the service stopped before the swap/));
    const { rows } = await runtime.db.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'replay\\_%'");
    expect(rows).toEqual([]);
  });

  it('an export the shutdown stops: the CLI reads that the service stopped it (unavailable, exit 4), and no file is left', async () => {
    const error = await followedThroughShutdown(
      () => exportThroughOwner(config, { readModel: 'conversions', format: 'csv', out: join(out, 'conversions.csv') }, silentProgress, () => {}),
      () => exports.underWay(),
    );
    expect(error).toBeInstanceOf(ExportThroughOwnerError);
    expect(error).toMatchObject({ unavailable: true, message: 'the export was stopped: the service stopped; the unfinished file was removed; run it again once the service is back' });
    expect(readdirSync(out)).toEqual([]);
  });
});
