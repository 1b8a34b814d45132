import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { SettingError } from '../config/settings.js';
import { BackendUnavailableError } from '../startup.js';

interface ListenAddress {
  host: string;
  port: number;
}

/**
 * What a failed listen says, naming its setting: a port another process holds is a backend-like
 * refusal (exit 4: free it and start again); a port this user may not bind, or a HOST that is not
 * this machine's, is configuration (exit 2). Anything else is returned as it is.
 */
function listenFailure(error: unknown, { host, port }: ListenAddress, setting: string, hint: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EADDRINUSE':
      return new BackendUnavailableError(setting, `${port} on ${host} is taken by another process`, hint);
    case 'EACCES':
      return new SettingError(setting, `${port} on ${host} may not be bound by this user (EACCES: ports below 1024 need privileges); choose a port from 1024 up`);
    case 'EADDRNOTAVAIL':
      return new SettingError('HOST', `${host} is not an address of this machine (EADDRNOTAVAIL); use one of its addresses, 127.0.0.1, or 0.0.0.0 for all`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return new SettingError('HOST', `"${host}" does not resolve to an address of this machine (${code}); use an address such as 127.0.0.1, or 0.0.0.0 for all`);
    default:
      return error;
  }
}

/**
 * Connections the kernel completes and holds for the server while its event loop is busy (the
 * system's net.core.somaxconn caps it; 4096 on current Linux). Node's default of 511 is about
 * 170 ms of new connections at 3,000 a second: under load, with the loop busy for longer (a
 * collection, a burst of answers), the rest were dropped by the kernel, and clients that had
 * already sent their request on such a connection were reset with no answer (up to 200 in a
 * 15 s burst on 4,000 connections; none with this queue).
 */
export const LISTEN_BACKLOG = 4096;

/**
 * Listens on host:port; a failure is a start-up failure naming its setting (one line and its exit
 * code from exitOnStartupFailure), not a stack trace.
 */
export async function listenOrRefuse(app: FastifyInstance, address: ListenAddress, setting: string, hint: string): Promise<string> {
  try {
    return await app.listen({ ...address, backlog: LISTEN_BACKLOG });
  } catch (error) {
    throw listenFailure(error, address, setting, hint);
  }
}

/**
 * Binds the address and lets it go at once, so a wrong HOST or PORT is said before the slow
 * start-up steps (opening the embedded database takes seconds), as listenOrRefuse would say it.
 */
export async function checkListenable(address: ListenAddress, setting: string, hint: string): Promise<void> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: address.host, port: address.port, exclusive: true }, resolve);
    });
  } catch (error) {
    throw listenFailure(error, address, setting, hint);
  } finally {
    await new Promise((resolve) => probe.close(resolve));
  }
}
