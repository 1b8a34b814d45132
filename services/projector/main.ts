import pino from 'pino';
import { smallCliArgs } from '../../platform/cli/small-cli.js';
import { loadConfigOrExit } from '../../platform/config/config.js';
import { logBackendFailure } from '../../platform/http/backend-failure-log.js';
import { openRuntime } from '../../platform/runtime.js';
import { shutDownWithin } from '../../platform/shutdown.js';
import { exitOnStartupFailure } from '../../platform/startup.js';
import { caughtUpReport } from './caught-up-report.js';
import { projectionHealth } from './projection-health.js';
import { projections, startProjectors, type RunningProjectors } from './projectors.js';

/**
 * The projector process: consumes the topics and maintains the read models. Logs one JSON line
 * per applied batch and one `caught_up` line whenever it has applied everything in the log.
 */
smallCliArgs({
  usage: `usage: npm run projector
Consumes the topics and builds the read models (with PROJECTORS=separate, the API leaves that to
processes like this one). Configured by the environment, as the API is (README, Configuration);
with PROJECTOR_PORT it answers /healthz, /readyz and /metrics on that port.`,
});
const config = loadConfigOrExit();
// Synchronous writes: a supervisor (or a test) sees each batch line the moment the batch commits.
const logger = pino({ level: config.logLevel, base: { process: 'projector' } }, pino.destination({ dest: 1, sync: true }));
const runtime = await openRuntime(config, { log: (line) => logger.info(line), warn: (line) => logger.warn(line), role: 'service', description: 'the projector process', redis: false }).catch(
  (error: unknown) => exitOnStartupFailure(error, 'the projector'),
);

let projectors: RunningProjectors | undefined;
/** On the embedded default: the owner socket, and how to stop the replay or export it runs. */
let ownerSocket: { stopJobs(): Promise<void>; close(): Promise<void>; refuseNewWork(): void } | undefined;
let http: { close(): Promise<unknown> } | undefined;
const health = projectionHealth();
// Handlers first: a supervisor may stop the process as soon as it logs anything.
let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  ownerSocket?.refuseNewWork();
  await shutDownWithin(
    [
      ['closing the HTTP port', async () => http?.close()],
      ['stopping the replay or export under way', async () => ownerSocket?.stopJobs()],
      ['closing the admin socket', async () => ownerSocket?.close()],
      ['stopping the projections', async () => projectors?.stop()],
      ['closing the backends', () => runtime.close()],
    ],
    (line) => logger.warn(line),
  );
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

const reportIfCaughtUp = caughtUpReport({
  // Batches of the first projections arrive while later ones are still starting.
  totalLag: () => projectors?.totalLag(),
  caughtUp: () => logger.info({ event: 'caught_up' }, 'all projections caught up'),
  checkFailed: (error) => logBackendFailure(logger, error, 'could not check whether the projections caught up', { event: 'lag_check_failed' }),
  minIntervalMs: 500,
});

// Before the projections join their groups: a port another process holds stops the start at once.
if (config.projectorPort > 0) {
  const { serveProjectorHttp } = await import('./http.js');
  http = await serveProjectorHttp(runtime, health).catch((error: unknown) => exitOnStartupFailure(error, 'the projector'));
  logger.info({ event: 'http_listening', host: config.host, port: config.projectorPort }, 'projector answers /healthz, /readyz and /metrics');
}

projectors = await startProjectors(runtime, {
  onBatchApplied(projection, topic, partition, lastOffset, applied) {
    health.applied(projection);
    logger.info({ event: 'batch_applied', projection, topic, partition, last_offset: lastOffset, applied }, 'batch applied');
    void reportIfCaughtUp();
  },
  onError(projection, error) {
    health.failed(projection, error);
    logger.error({ event: 'projection_failed', projection, err: error }, 'reading or applying the log failed; it will be retried');
  },
}).catch((error: unknown) => exitOnStartupFailure(error, 'the projector'));
health.started(projectors.lagByProjection);
// On the embedded default this process owns DATA_DIR, so the admin CLI's commands come here.
// Loaded only then: the commands take about a second to load, which would lengthen every
// restart of a projector on Kafka and Postgres.
if (runtime.owner) {
  const [{ commandExecutor }, { serveCommandsOnOwnerSocket }, { stopJobsUnderWay }, { jobFollowers }, { replayJobs }, { exportJobs }] = await Promise.all([
    import('../admin/command-executor.js'),
    import('../admin/owner-commands.js'),
    import('../admin/stop-jobs.js'),
    import('../admin/job-followers.js'),
    import('../replay/jobs.js'),
    import('../export/jobs.js'),
  ]);
  const jobs = { replays: replayJobs(runtime), exports: exportJobs(runtime), followers: jobFollowers() };
  const socket = await serveCommandsOnOwnerSocket(runtime, commandExecutor(runtime, { projections }), jobs);
  ownerSocket = { ...socket, stopJobs: () => stopJobsUnderWay(jobs, (line) => logger.warn(line)) };
  // A stop asked for while the socket was being opened.
  if (stopping) socket.refuseNewWork();
}
logger.info({ event: 'started', backend: runtime.eventLog.kind }, 'projector started');
void reportIfCaughtUp();


