import type { FastifyInstance } from 'fastify';
import { success } from '../../../../platform/http/envelope.js';
import { ApiError, badRequest, notFound } from '../../../../platform/http/errors.js';
import { ExportBusyError, type ExportJobs } from '../../../export/jobs.js';
import { ExportInputError } from '../../../export/options.js';
import type { JobFollowers } from '../../../admin/job-followers.js';
import { requestInput } from './request-input.js';

/**
 * Exports on the embedded owner's socket (behind its token): POST starts one from the export
 * CLI's flags (202 with the job), GET follows it, DELETE cancels it. Not on the API port: the file
 * is written where the service runs, which is the caller's machine only on the owner socket.
 * `followers` learns who follows which job, for the service's shutdown (job-followers.ts).
 */
export async function exportRoutes(app: FastifyInstance, options: { exports: ExportJobs; followers?: JobFollowers }) {
  app.post('/exports', { schema: { hide: true } }, async (request, reply) => {
    options.followers?.admitNewJob();
    try {
      const job = options.exports.start(requestInput(request));
      options.followers?.started(job.id);
      return reply.code(202).send(success({ job }));
    } catch (error) {
      if (error instanceof ExportInputError) throw badRequest(error.message, { field: error.flag });
      if (error instanceof ExportBusyError) throw new ApiError(409, 'EXPORT_RUNNING', error.message);
      throw error;
    }
  });

  app.get('/exports/:id', { schema: { hide: true } }, async (request) => {
    const job = options.exports.get((request.params as { id: string }).id);
    if (!job) throw notFound('no such export here');
    options.followers?.polled(job);
    return success({ job });
  });

  app.delete('/exports/:id', { schema: { hide: true } }, async (request) => {
    const job = options.exports.cancel((request.params as { id: string }).id);
    if (!job) throw notFound('no such export here');
    return success({ job });
  });
}
