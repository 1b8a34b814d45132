import { loadConfigOrExit } from '../../platform/config/config.js';
import { openRuntime } from '../../platform/runtime.js';
import { buildApp } from './app.js';
import { prepareReferenceData } from './reference-data.js';
import { startProjectors } from '../projector/projectors.js';

/** Starts the API (and, on the embedded default, the projectors in the same process); stops gracefully. */
const config = loadConfigOrExit();
const log = (line: string) => process.stderr.write(`${line}\n`);
const runtime = await openRuntime(config, { log });
await prepareReferenceData(runtime, log);
const projectors = await startProjectors(runtime);
const app = await buildApp({ runtime, logger: { level: config.logLevel } });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  app.log.info({ signal }, 'shutting down');
  await app.close();
  await projectors.stop();
  await runtime.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ port: config.port, host: config.host });
