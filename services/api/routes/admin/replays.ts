import type { FastifyInstance } from 'fastify';
import { success } from '../../../../platform/http/envelope.js';
import { ApiError, badRequest, notFound } from '../../../../platform/http/errors.js';
import { ReplayInputError } from '../../../../platform/projection/point-in-time.js';
import { ReplayBusyError, type ReplayJobs } from '../../../replay/jobs.js';

/**
 * Replays on the admin API (behind the admin routes' token): POST starts one (202 with the job),
 * GET follows it (progress, then the report), DELETE cancels it (unless it is already swapping:
 * then it ends swapped; follow it until it is no longer running). Not a command: a replay appends no event, it
 * rebuilds read models beside the live ones (README, "Analysts").
 */
export async function replayRoutes(app: FastifyInstance, options: { replays: ReplayJobs }) {
  app.post('/replays', { schema: { hide: true } }, async (request, reply) => {
    try {
      return reply.code(202).send(success({ job: await options.replays.start(request.body ?? {}) }));
    } catch (error) {
      if (error instanceof ReplayInputError) throw badRequest(`${error.option}: ${error.message}`, { field: error.option });
      if (error instanceof ReplayBusyError) throw new ApiError(409, 'REPLAY_RUNNING', error.message);
      throw error;
    }
  });

  // Kept schemas (point in time, --keep): listed, and dropped by name once their queries are done.
  app.get('/replays/kept', { schema: { hide: true } }, async () => {
    const { names, about } = await options.replays.kept();
    return success({ schemas: names, about });
  });
  app.post('/replays/drop', { schema: { hide: true } }, async (request) => {
    try {
      return success({ dropped: await options.replays.drop(request.body ?? {}) });
    } catch (error) {
      if (error instanceof ReplayInputError) throw badRequest(`${error.option}: ${error.message}`, { field: error.option });
      if (error instanceof ReplayBusyError) throw new ApiError(409, 'REPLAY_RUNNING', error.message);
      throw error;
    }
  });

  app.get('/replays/:id', { schema: { hide: true } }, async (request) => {
    const job = options.replays.get((request.params as { id: string }).id);
    if (!job) throw notFound('no such replay here');
    return success({ job });
  });

  app.delete('/replays/:id', { schema: { hide: true } }, async (request) => {
    const job = options.replays.cancel((request.params as { id: string }).id);
    if (!job) throw notFound('no such replay here');
    return success({ job });
  });
}
