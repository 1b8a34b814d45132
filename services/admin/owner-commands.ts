import Fastify from 'fastify';
import { errorHandling } from '../../platform/http/error-handler.js';
import type { Runtime } from '../../platform/runtime.js';
import { adminRoutes } from '../api/routes/admin/index.js';
import { exportJobs, type ExportJobs } from '../export/jobs.js';
import { replayJobs, type ReplayJobs } from '../replay/jobs.js';
import type { CommandExecutor } from './command-executor.js';

/**
 * On the embedded default, the process that owns DATA_DIR answers admin commands on its owner
 * socket (behind the token it keeps in DATA_DIR), so `npm run admin` (and `npm run replay`,
 * `npm run export`) while it runs goes through it instead of opening the database a second time. Returns how to stop answering.
 * The replay and export jobs are the caller's, so its shutdown can stop the ones under way.
 */
export async function serveCommandsOnOwnerSocket(
  runtime: Runtime,
  commands: CommandExecutor,
  replays: ReplayJobs = replayJobs(runtime),
  exports: ExportJobs = exportJobs(runtime),
): Promise<() => Promise<void>> {
  const owner = runtime.owner;
  if (!owner) return async () => {};
  const app = Fastify({ logger: false });
  await app.register(errorHandling);
  await app.register(adminRoutes, { token: owner.token, commands, replays, exports });
  await app.ready();
  owner.serve((request, response) => app.routing(request, response));
  return () => app.close();
}
