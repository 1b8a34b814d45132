import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { abstractSockets, ownerAddress, OWNER_TOKEN_FILE, requestOwner } from './owner-client.js';

/**
 * Exactly one process owns an embedded DATA_DIR at a time: the embedded Postgres is one process's
 * memory over those files, and a second process writing them loses data silently.
 *
 * Ownership is a listening Unix socket. On Linux it lives in the abstract namespace, so binding it
 * is atomic and the kernel releases it when the owner exits or is killed: no stale lock to clean
 * after a crash. The same socket is the owner's door: `GET /owner` says who holds the folder, and
 * a service owner answers admin commands on it (behind a token it writes into DATA_DIR, readable
 * only by whoever may read the data anyway).
 */
export type OwnerRole = 'service' | 'tool';

export interface OwnerInfo {
  pid: number;
  role: OwnerRole;
  /** What the owner runs, e.g. `npm start` or `admin developer:register`. */
  description: string;
  started_at: string;
  /** A service answers commands once its runtime is open. */
  accepting_commands: boolean;
}

export interface DataDirOwnership {
  readonly dataDir: string;
  readonly token: string;
  /** Starts answering requests other than `GET /owner` (admin commands) on the owner socket. */
  serve(handler: RequestListener): void;
  release(): Promise<void>;
}

/** DATA_DIR is held by another process. */
export class DataDirBusyError extends Error {
  constructor(readonly dataDir: string, readonly owner: OwnerInfo | undefined) {
    super(
      owner
        ? `DATA_DIR ${dataDir} is in use by ${owner.role === 'service' ? 'the service' : 'another command'} (pid ${owner.pid}: ${owner.description})`
        : `DATA_DIR ${dataDir} is in use by another process`,
    );
    this.name = 'DataDirBusyError';
  }
}

function listen(server: Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(address);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

/**
 * Takes DATA_DIR for this process, or throws DataDirBusyError naming the owner. Released by
 * `release()` and, whatever happens, when the process ends.
 */
export async function acquireDataDir(dataDir: string, role: OwnerRole, description: string): Promise<DataDirOwnership> {
  const address = ownerAddress(dataDir);
  let handler: RequestListener | undefined;
  const info: OwnerInfo = { pid: process.pid, role, description, started_at: new Date().toISOString(), accepting_commands: false };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' && request.url === '/owner') return sendJson(response, 200, info);
    if (!handler) {
      return sendJson(response, 503, { code: 'OWNER_NOT_READY', message: role === 'service' ? 'the service is starting; retry shortly' : 'this process does not take commands', data: {}, extra: {} });
    }
    handler(request, response);
  });
  // Socket connections must not keep a finished command-line process alive.
  server.unref();

  try {
    await listen(server, address);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const owner = await requestOwner<OwnerInfo>(dataDir, 'GET', '/owner').then((reply) => reply.body).catch(() => undefined);
    if (owner || abstractSockets) throw new DataDirBusyError(dataDir, owner);
    // A socket file (systems without abstract sockets) whose owner died: nobody answers, so take it.
    rmSync(address, { force: true });
    await listen(server, address).catch((retry: NodeJS.ErrnoException) => {
      throw retry.code === 'EADDRINUSE' ? new DataDirBusyError(dataDir, undefined) : retry;
    });
  }

  // A fresh token per owner: a client must read it from DATA_DIR, i.e. be allowed to read the data.
  const token = randomBytes(24).toString('hex');
  writeFileSync(join(dataDir, OWNER_TOKEN_FILE), `${token}\n`, { mode: 0o600 });
  return {
    dataDir,
    token,
    serve(next) {
      handler = next;
      info.accepting_commands = true;
    },
    release: () =>
      new Promise<void>((resolve) => {
        handler = undefined;
        info.accepting_commands = false;
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
