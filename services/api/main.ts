import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { smallCliArgs } from '../../platform/cli/small-cli.js';
import { loadConfigOrExit, ownLinkBase } from '../../platform/config/config.js';
import { checkListenable, listenOrRefuse } from '../../platform/http/listen.js';
import { openRuntime } from '../../platform/runtime.js';
import { shutDownWithin } from '../../platform/shutdown.js';
import { exitOnStartupFailure } from '../../platform/startup.js';
import { commandExecutor } from '../admin/command-executor.js';
import { serveCommandsOnOwnerSocket } from '../admin/owner-commands.js';
import { stopJobsUnderWay } from '../admin/stop-jobs.js';
import { jobFollowers } from '../admin/job-followers.js';
import { exportJobs } from '../export/jobs.js';
import { projectionHealth } from '../projector/projection-health.js';
import { projections, startProjectors } from '../projector/projectors.js';
import { replayJobs } from '../replay/jobs.js';
import { buildApp } from './app.js';
import { prepareReferenceData } from './reference-data.js';
import { warmLocationIndexes } from './routes/locations/warm.js';

/**
 * Starts the API (with the projectors in the same process unless PROJECTORS=separate); stops
 * gracefully. On the embedded default it owns DATA_DIR and answers the admin CLI on its owner socket.
 */
smallCliArgs({
  usage: `usage: npm start
Starts the API on HOST:PORT (default 127.0.0.1:8080): on the embedded default with nothing set,
else on the backends the environment names (README, Configuration), with the projectors in this
process unless PROJECTORS=separate.`,
});
const config = loadConfigOrExit();
// Start-up and background lines as JSON on stdout beside the access log, so one log shipper reads
// them all; only a refused start (exitOnStartupFailure) is a plain line on stderr, for whoever ran it.
const logger = pino({ level: config.logLevel });
const log = (line: string) => logger.info(line);
const PORT_HINT = 'stop what holds it, or choose another port';
await checkListenable({ port: config.port, host: config.host }, 'PORT', PORT_HINT).catch((error: unknown) => exitOnStartupFailure(error, 'the API'));
const runtime = await openRuntime(config, { log, warn: (line) => logger.warn(line), role: 'service', description: 'npm start (the API)' }).catch((error: unknown) =>
  exitOnStartupFailure(error, 'the API'),
);
await prepareReferenceData(runtime, log);
// With PROJECTORS=separate the projector processes build the read models; commands and readers
// here still wait for them through the applied watermarks.
// Inline, they are this process's own: its readiness says whether they apply the log.
const health = config.projectors === 'inline' ? projectionHealth() : undefined;
const projectors = health
  ? await startProjectors(runtime, {
    onBatchApplied: (projection) => health.applied(projection),
    onError: (projection, error) => {
      health.failed(projection, error);
      logger.error({ projection }, `projection ${projection}: reading or applying the log failed (${error.message}); it will be retried`);
    },
  }).catch((error: unknown) => exitOnStartupFailure(error, 'the API'))
  : undefined;
if (health && projectors) health.started(projectors.lagByProjection);
const commands = commandExecutor(runtime, { projections, onLateProjection: (error) => logger.warn(`admin command: ${error.message}`) });
// One replay registry for the admin API and the owner socket (one replay at a time per process);
// exports are served on the owner socket only. Both are here so the shutdown can stop their jobs,
// and tell when their followers on either have read how they ended.
const jobs = { replays: replayJobs(runtime), exports: exportJobs(runtime), followers: jobFollowers() };
const app = await buildApp({ runtime, logger: { level: config.logLevel }, commands, replays: jobs.replays, followers: jobs.followers, ...(health && { alsoReady: { projections: () => health.check() } }) });
const ownerSocket = await serveCommandsOnOwnerSocket(runtime, commands, jobs);
// The location indexes are built (or read from their snapshots) before listening, so the first
// requests do not pay for them; not in an onReady hook, whose 10 s plugin timeout a full-size
// catalog can pass on a busy machine, ending the start.
await warmLocationIndexes(runtime, (line) => app.log.info(line));

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal, drain_ms: config.shutdownDrainMs }, 'shutting down');
  app.startDraining();
  ownerSocket.refuseNewWork();
  jobs.followers.refuseNewJobs();
  await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
  await shutDownWithin(
    [
      // Before the HTTP server and the socket close, so that a caller following a job reads how it ended.
      ['stopping the replay or export under way', () => stopJobsUnderWay(jobs, log)],
      ['closing the HTTP server (answers under way)', () => app.close()],
      ['closing the admin socket', () => ownerSocket.close()],
      ['stopping the projections', async () => projectors?.stop()],
      ['closing the backends (the event log flushes)', () => runtime.close()],
    ],
    log,
  );
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await listenOrRefuse(app, { port: config.port, host: config.host }, 'PORT', PORT_HINT).catch((error: unknown) =>
  exitOnStartupFailure(error, 'the API'),
);
// PORT=0 lets the system pick the port, so the default LINK_BASE (this API's own address) is
// known only now: cards served before would carry links to port 0, which no one can open.
if (config.port === 0 && runtime.config.linkBase === ownLinkBase(config.host, 0)) {
  runtime.config.linkBase = ownLinkBase(config.host, (app.server.address() as AddressInfo).port);
}
