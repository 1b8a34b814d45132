import pino from 'pino';
import { loadConfigOrExit } from '../../platform/config/config.js';
import { openRuntime } from '../../platform/runtime.js';
import { exitOnStartupFailure } from '../../platform/startup.js';
import { commandExecutor } from '../admin/command-executor.js';
import { serveCommandsOnOwnerSocket } from '../admin/owner-commands.js';
import { projections, startProjectors, type RunningProjectors } from './projectors.js';

/**
 * The projector process: consumes the topics and maintains the read models. Logs one JSON line
 * per applied batch and one `caught_up` line whenever it has applied everything in the log.
 */
const config = loadConfigOrExit();
// Synchronous writes: a supervisor (or a test) sees each batch line the moment the batch commits.
const logger = pino({ level: config.logLevel, base: { process: 'projector' } }, pino.destination({ dest: 1, sync: true }));
const runtime = await openRuntime(config, { log: (line) => logger.info(line), role: 'service', description: 'the projector process' }).catch(
  (error: unknown) => exitOnStartupFailure(error, 'the projector'),
);

let projectors: RunningProjectors | undefined;
let stopOwnerCommands: (() => Promise<void>) | undefined;
// Handlers first: a supervisor may stop the process as soon as it logs anything.
let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await stopOwnerCommands?.();
  await projectors?.stop();
  await runtime.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

/** How often, at most, the lag of every projection is measured (it costs Kafka admin calls and a query per projection). */
const LAG_CHECK_INTERVAL_MS = 500;
let lagCheck: Promise<void> | undefined;
let checkAgain = false;
let lastCheckAt = 0;
/**
 * Logs `caught_up` when nothing is left. Called after every batch, but measures at most once per
 * LAG_CHECK_INTERVAL_MS: a batch applied during or soon after a check asks for one more, later.
 */
function reportIfCaughtUp() {
  // Batches of the first projections arrive while later ones are still starting.
  if (!projectors) return;
  if (lagCheck) {
    checkAgain = true;
    return;
  }
  const running = projectors;
  lagCheck = (async () => {
    const wait = lastCheckAt + LAG_CHECK_INTERVAL_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    checkAgain = false;
    lastCheckAt = Date.now();
    if ((await running.totalLag()) === 0) logger.info({ event: 'caught_up' }, 'all projections caught up');
  })()
    .catch((error: unknown) => logger.warn({ err: error }, 'lag check failed'))
    .finally(() => {
      lagCheck = undefined;
      if (checkAgain && !stopping) reportIfCaughtUp();
    });
}

projectors = await startProjectors(runtime, {
  onBatchApplied(projection, topic, partition, lastOffset, applied) {
    logger.info({ event: 'batch_applied', projection, topic, partition, last_offset: lastOffset, applied }, 'batch applied');
    reportIfCaughtUp();
  },
  onError(projection, error) {
    logger.error({ event: 'batch_failed', projection, err: error }, 'batch failed; it will be retried');
  },
});
// On the embedded default this process owns DATA_DIR, so the admin CLI's commands come here.
stopOwnerCommands = await serveCommandsOnOwnerSocket(runtime, commandExecutor(runtime, { projections }));
logger.info({ event: 'started', backend: runtime.eventLog.kind }, 'projector started');
reportIfCaughtUp();


