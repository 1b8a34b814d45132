import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { success } from '../../../../platform/http/envelope.js';
import { ApiError, badRequest, notFound, unauthorized } from '../../../../platform/http/errors.js';
import type { Runtime } from '../../../../platform/runtime.js';
import { AdminInputError, AdminNotFoundError } from '../../../admin/command.js';
import { adminCommands } from '../../../admin/commands/index.js';
import { runAdminCommand } from '../../../admin/run-command.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The internal admin API: the admin commands over HTTP, behind their own bearer token. API keys
 * are never accepted here; only the configured ADMIN_TOKEN opens it. Registered only when set.
 */
export async function adminRoutes(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  const expected = digest(runtime.config.adminToken ?? '');
  const commands = new Map(adminCommands.map((command) => [command.name, command]));

  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
    // Compare digests so the comparison takes the same time whatever the presented length.
    if (!token || !timingSafeEqual(digest(token), expected)) throw unauthorized('admin token missing or invalid');
  });

  app.get('/commands', async () =>
    success({ commands: adminCommands.map((command) => ({ name: command.name, summary: command.summary, input: command.input })) }),
  );

  app.post('/commands/:name', async (request) => {
    const { name } = request.params as { name: string };
    const command = commands.get(name);
    if (!command) throw notFound(`no admin command named ${name}`);
    try {
      return success(await runAdminCommand(command, request.body ?? {}, { runtime, now: () => new Date() }));
    } catch (error) {
      if (error instanceof AdminInputError) throw badRequest(error.message, { field: error.field });
      if (error instanceof AdminNotFoundError) throw new ApiError(404, 'NOT_FOUND', error.message, { field: error.field });
      throw error;
    }
  });
}
