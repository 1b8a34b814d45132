import { isJsonContentType } from '../../../../platform/http/json-media-type.js';
import type { FastifyInstance } from 'fastify';
import { CommandInputError, CommandNotFoundError, CommandUnavailableError } from '../../../../commands/command.js';
import { adminCommands } from '../../../../commands/index.js';
import { success } from '../../../../platform/http/envelope.js';
import { ApiError, badRequest, notFound, serviceUnavailable, tooManyRequests, unauthorized, unsupportedMediaType } from '../../../../platform/http/errors.js';
import { ReadModelsBehindError } from '../../../../platform/projection/catch-up.js';
import type { CommandExecutor } from '../../../admin/command-executor.js';
import type { ExportJobs } from '../../../export/jobs.js';
import type { ReplayJobs } from '../../../replay/jobs.js';
import type { JobFollowers } from '../../../admin/job-followers.js';
import { exportRoutes } from './exports.js';
import { judgeToken } from '../../../../platform/http/token-throttle.js';
import type { AdminTokenThrottle } from './token-throttle.js';
import { replayRoutes } from './replays.js';
import { bearerOf, tokenCheck } from '../../../../platform/http/token-check.js';
import { isProgrammingError, logBackendFailure } from '../../../../platform/http/backend-failure-log.js';
import { requestInput } from './request-input.js';

export interface AdminRouteOptions {
  /** The bearer token that opens these routes (ADMIN_TOKEN, or the DATA_DIR owner's token). */
  token: string;
  commands: CommandExecutor;
  /** Replays of read models run by this process (`/replays`). */
  replays?: ReplayJobs;
  /** Exports run by this process (`/exports`; the owner socket only). */
  exports?: ExportJobs;
  /** Who follows the replays and exports, for the shutdown (job-followers.ts). */
  followers?: JobFollowers;
  /** Wrong tokens counted per client (the API port; the owner's local socket has no clients to tell apart). */
  throttle?: AdminTokenThrottle;
}

/**
 * The internal admin API: the admin commands over HTTP, behind their own bearer token. API keys
 * are never accepted here. Served on the API port when ADMIN_TOKEN is set, and on the embedded
 * owner's local socket for the admin CLI.
 */
export async function adminRoutes(app: FastifyInstance, options: AdminRouteOptions) {
  const isAdminToken = tokenCheck(options.token);
  const commands = new Map(adminCommands.map((command) => [command.name, command]));

  app.addHook('onRequest', async (request) => {
    const verdict = await judgeToken(request, bearerOf(request), isAdminToken, options.throttle);
    if (verdict === 'right') return;
    if (typeof verdict === 'object') throw tooManyRequests(verdict.refusedFor);
    throw unauthorized('admin token missing or invalid');
  });
  // Answers hold what only operators may read (an issued key is shown once): no cache keeps them.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  // Inputs are JSON: a text/plain body (read as a string) would be refused as "(input): expected object".
  app.addHook('preValidation', async (request) => {
    // Only a body that is not JSON: a JSON string ("x") is JSON whose input is not an object, a 400 as for 1 or [].
    if (typeof request.body === 'string' && !isJsonContentType(request.headers['content-type'])) throw unsupportedMediaType(`${request.headers['content-type']} is not accepted; send the input as JSON with Content-Type: application/json`);
  });

  // Operators' API: kept out of the public OpenAPI document.
  app.get('/commands', { schema: { hide: true } }, async () =>
    success({ commands: adminCommands.map((command) => ({ name: command.name, summary: command.summary, input: command.input })) }),
  );

  app.post('/commands/:name', { schema: { hide: true } }, async (request) => {
    const { name } = request.params as { name: string };
    const command = commands.get(name);
    if (!command) throw notFound(`no admin command named ${name}`);
    try {
      return success(await options.commands.run(command, requestInput(request)));
    } catch (error) {
      if (error instanceof ReadModelsBehindError) throw serviceUnavailable('READ_MODELS_BEHIND', error.message);
      if (error instanceof CommandInputError) throw badRequest(error.message, { field: error.field });
      if (error instanceof CommandNotFoundError) throw new ApiError(404, 'NOT_FOUND', error.message, { field: error.field });
      if (error instanceof CommandUnavailableError) throw serviceUnavailable(error.code, error.message);
      if (error instanceof ApiError) throw error;
      // The log or a read model failed while the command ran (a dropped session, a broker that went
      // away): a retry is the answer, as on every route. A command appends last, so a failure before
      // that appended nothing; one in the append itself may have been logged, and the retry is then
      // refused as a repeat (or repeats an idempotent change).
      logBackendFailure(request.log, error, `admin command ${name} failed`);
      // A backend's own error says what failed (a refused connection, a timeout); a programming
      // error (ours or a client library's, a TypeError) says nothing useful and is only logged.
      const detail = isProgrammingError(error) ? 'an unexpected error, written to the service log' : (error as Error).message;
      throw serviceUnavailable('COMMAND_UNAVAILABLE', `the command could not complete: a backend failed or did not answer (${detail}); retry shortly`);
    }
  });

  if (options.replays) await app.register(replayRoutes, { replays: options.replays, followers: options.followers });
  if (options.exports) await app.register(exportRoutes, { exports: options.exports, followers: options.followers });
}
