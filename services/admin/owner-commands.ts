import Fastify from 'fastify';
import { errorHandling } from '../../platform/http/error-handler.js';
import { shuttingDown } from '../../platform/http/request-guards.js';
import type { Runtime } from '../../platform/runtime.js';
import { adminRoutes } from '../api/routes/admin/index.js';
import type { ExportJobs } from '../export/jobs.js';
import type { ReplayJobs } from '../replay/jobs.js';
import type { CommandExecutor } from './command-executor.js';
import type { JobFollowers } from './job-followers.js';

/** A job's own state on the owner socket: what its follower (the replay or export CLI) polls. */
const JOB_STATE = /^\/(replays|exports)\/[0-9a-f-]{36}$/;

/** The owner socket, as the service's shutdown needs it. */
export interface OwnerSocket {
  /**
   * From now on the socket answers only the state of a job (what a follower polls); anything else,
   * a new replay or export included, is 503 SHUTTING_DOWN.
   */
  refuseNewWork(): void;
  close(): Promise<void>;
}

/**
 * On the embedded default, the process that owns DATA_DIR answers admin commands on its owner
 * socket (behind the token it keeps in DATA_DIR), so `npm run admin` (and `npm run replay`,
 * `npm run export`) while it runs goes through it instead of opening the database a second time.
 * The replay and export jobs are the caller's, so its shutdown can stop the ones under way, and
 * `followers` (the caller's too) tells it who follows them here.
 */
export async function serveCommandsOnOwnerSocket(
  runtime: Runtime,
  commands: CommandExecutor,
  jobs: { replays: ReplayJobs; exports: ExportJobs; followers: JobFollowers },
): Promise<OwnerSocket> {
  const owner = runtime.owner;
  if (!owner) return { refuseNewWork: () => {}, close: async () => {} };
  let refusing = false;
  const app = Fastify({ logger: false });
  await app.register(errorHandling);
  app.addHook('onRequest', async (request) => {
    if (refusing && !(request.method === 'GET' && JOB_STATE.test(request.url.split('?')[0]!))) throw shuttingDown();
  });
  await app.register(adminRoutes, { token: owner.token, commands, ...jobs });
  await app.ready();
  owner.serve((request, response) => app.routing(request, response));

  return {
    refuseNewWork: () => {
      refusing = true;
    },
    close: () => app.close(),
  };
}
