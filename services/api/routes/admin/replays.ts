import type { FastifyInstance } from 'fastify';
import { success } from '../../../../platform/http/envelope.js';
import { ApiError, badRequest, notFound, serviceUnavailable } from '../../../../platform/http/errors.js';
import { logBackendFailure } from '../../../../platform/http/backend-failure-log.js';
import { unavailableOnFailure } from '../../../../platform/http/read-or-unavailable.js';
import { ReplayInputError } from '../../../../platform/projection/point-in-time.js';
import { ReplayBusyError, type ReplayJobs } from '../../../replay/jobs.js';
import { SchemaInUseError } from '../../../replay/kept.js';
import { CANONICAL_UUID } from '../../../../platform/ids/uuid-text.js';
import type { JobFollowers } from '../../../admin/job-followers.js';
import { requestInput } from './request-input.js';

/** A replay job's id (randomUUID), as the path parameter's pattern. */
const JOB_ID = CANONICAL_UUID.source;

/**
 * Replays on the admin API (behind the admin routes' token): POST starts one (202 with the job),
 * GET follows it (progress, then the report), DELETE cancels it (unless it is already swapping:
 * then it ends swapped; follow it until it is no longer running). Not a command: a replay appends no event, it
 * rebuilds read models beside the live ones (README, "Analysts"). `followers` learns who follows
 * which job, for the service's shutdown (job-followers.ts).
 */
export async function replayRoutes(app: FastifyInstance, options: { replays: ReplayJobs; followers?: JobFollowers }) {
  app.post('/replays', { schema: { hide: true } }, async (request, reply) => {
    options.followers?.admitNewJob();
    try {
      const job = await options.replays.start(requestInput(request));
      options.followers?.started(job.id);
      return reply.code(202).send(success({ job }));
    } catch (error) {
      if (error instanceof ReplayInputError) throw badRequest(`${error.option}: ${error.message}`, { field: error.option });
      if (error instanceof ReplayBusyError) throw new ApiError(409, 'REPLAY_RUNNING', error.message);
      throw error;
    }
  });

  // Kept schemas (point in time, --keep): listed, and dropped by name once their queries are done.
  // A database that fails or does not answer is a 503 to retry, as on every other admin route.
  const readKept = unavailableOnFailure('REPLAY_UNAVAILABLE', 'the kept schemas cannot be read right now; retry later', 'kept replay schemas could not be read');
  app.get('/replays/kept', { schema: { hide: true } }, async (request) => {
    const { names, about } = await readKept(request, () => options.replays.kept());
    return success({ schemas: names, about });
  });
  app.post('/replays/drop', { schema: { hide: true } }, async (request) => {
    try {
      return success({ dropped: await options.replays.drop(requestInput(request)) });
    } catch (error) {
      if (error instanceof ReplayInputError) throw badRequest(`${error.option}: ${error.message}`, { field: error.option });
      if (error instanceof ReplayBusyError) throw new ApiError(409, 'REPLAY_RUNNING', error.message);
      if (error instanceof SchemaInUseError) throw serviceUnavailable('REPLAY_UNAVAILABLE', error.message);
      // Dropping waits as long as the database takes (a large schema), for tables a query holds 5 s at most (SchemaInUseError).
      logBackendFailure(request.log, error, 'kept replay schemas could not be dropped');
      throw serviceUnavailable('REPLAY_UNAVAILABLE', 'the schemas cannot be dropped right now (the database failed); list them again and retry');
    }
  });

  // A job id is a UUID: `kept` and `drop` are never one, so a wrong method on those paths is a 405
  // naming their own methods rather than a 404 for a job of that name.
  app.get(`/replays/:id(${JOB_ID})`, { schema: { hide: true } }, async (request) => {
    const job = options.replays.get((request.params as { id: string }).id);
    if (!job) throw notFound('no such replay here');
    options.followers?.polled(job);
    // A shutdown takes no new connection: its follower reads how it ended on this one.
    request.keepsConnectionWhileDraining = job.state === 'running';
    return success({ job });
  });

  app.delete(`/replays/:id(${JOB_ID})`, { schema: { hide: true } }, async (request) => {
    const job = options.replays.cancel((request.params as { id: string }).id);
    if (!job) throw notFound('no such replay here');
    return success({ job });
  });
}
