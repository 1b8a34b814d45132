import type { FastifyInstance } from 'fastify';
import { BackendUnavailableError } from '../startup.js';

/**
 * Listens on host:port; a port another process holds is a startup failure naming the setting
 * (one line and exit 4 from exitOnStartupFailure), not a stack trace.
 */
export async function listenOrRefuse(app: FastifyInstance, address: { host: string; port: number }, setting: string, hint: string): Promise<string> {
  try {
    return await app.listen(address);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new BackendUnavailableError(setting, `${address.port} on ${address.host} is taken by another process`, hint);
  }
}
