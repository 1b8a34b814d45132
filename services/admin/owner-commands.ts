import Fastify from 'fastify';
import { errorHandling } from '../../platform/http/error-handler.js';
import { shuttingDown } from '../../platform/http/request-guards.js';
import type { Runtime } from '../../platform/runtime.js';
import { adminRoutes } from '../api/routes/admin/index.js';
import type { ExportJobs } from '../export/jobs.js';
import type { ReplayJobs } from '../replay/jobs.js';
import type { CommandExecutor } from './command-executor.js';

/** A job's own state on the owner socket: what its follower (the replay or export CLI) polls. */
const JOB_STATE = /^\/(replays|exports)\/([0-9a-f-]{36})$/;
/** How many job ids the socket remembers as followed. */
const NOTED_JOBS = 100;
/** A job started on the owner socket. */
const JOB_START = /^\/(replays|exports)$/;

/** The owner socket, as the service's shutdown needs it. */
export interface OwnerSocket {
  /**
   * From now on the socket answers only the state of a job (what a follower polls); anything else,
   * a new replay or export included, is 503 SHUTTING_DOWN.
   */
  refuseNewWork(): void;
  /**
   * Resolves once each of the jobs `ids` that a caller follows on this socket has had its final
   * state read there (a follower then says how its job ended, not that the service vanished), or
   * after `ms` (a follower that went away reads nothing more).
   */
  finalStatesRead(ids: readonly string[], ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * On the embedded default, the process that owns DATA_DIR answers admin commands on its owner
 * socket (behind the token it keeps in DATA_DIR), so `npm run admin` (and `npm run replay`,
 * `npm run export`) while it runs goes through it instead of opening the database a second time.
 * The replay and export jobs are the caller's, so its shutdown can stop the ones under way.
 */
export async function serveCommandsOnOwnerSocket(
  runtime: Runtime,
  commands: CommandExecutor,
  replays: ReplayJobs,
  exports: ExportJobs,
): Promise<OwnerSocket> {
  const owner = runtime.owner;
  if (!owner) return { refuseNewWork: () => {}, finalStatesRead: async () => {}, close: async () => {} };
  let refusing = false;
  /** Jobs started or polled here, and those of them whose final state was read here (the latest few: the registries keep 20). */
  const followed = new Set<string>();
  const finalRead = new Set<string>();
  const note = (ids: Set<string>, id: string) => {
    ids.add(id);
    if (ids.size > NOTED_JOBS) ids.delete(ids.values().next().value!);
  };
  let onFinalRead = () => {};

  const app = Fastify({ logger: false });
  await app.register(errorHandling);
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]!;
    const state = request.method === 'GET' ? JOB_STATE.exec(path) : null;
    if (!state) {
      if (refusing) throw shuttingDown();
      return;
    }
    const id = state[2]!;
    note(followed, id);
    // A job leaves `running` once and for all: the answer to this request carries its final state.
    const job = state[1] === 'replays' ? replays.get(id) : exports.get(id);
    if (job && job.state !== 'running') {
      note(finalRead, id);
      onFinalRead();
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method === 'POST' && reply.statusCode === 202 && JOB_START.test(request.url) && typeof payload === 'string') {
      const id = (JSON.parse(payload) as { data?: { job?: { id?: string } } }).data?.job?.id;
      if (id) note(followed, id);
    }
    return payload;
  });
  await app.register(adminRoutes, { token: owner.token, commands, replays, exports });
  await app.ready();
  owner.serve((request, response) => app.routing(request, response));

  return {
    refuseNewWork: () => {
      refusing = true;
    },
    finalStatesRead: (ids, ms) =>
      new Promise<void>((resolve) => {
        const waiting = () => ids.some((id) => followed.has(id) && !finalRead.has(id));
        if (!waiting()) return resolve();
        const timer = setTimeout(resolve, ms);
        onFinalRead = () => {
          if (waiting()) return;
          clearTimeout(timer);
          resolve();
        };
      }),
    close: () => app.close(),
  };
}
