import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { BackendUnavailableError } from '../startup.js';
import { abstractSockets, OWNER_CHALLENGE, ownerAddress, ownerProof, OWNER_TOKEN_FILE, readOwnerToken, requestOwner } from './owner-client.js';

/**
 * Exactly one process owns an embedded DATA_DIR at a time: the embedded Postgres is one process's
 * memory over those files, and a second process writing them loses data silently.
 *
 * Ownership is a listening Unix socket. On Linux it lives in the abstract namespace, so binding it
 * is atomic and the kernel releases it when the owner exits or is killed: no stale lock to clean
 * after a crash. The same socket is the owner's door: `GET /owner` says who holds the folder, and
 * a service owner answers admin commands on it (behind a token it writes into DATA_DIR, readable
 * only by whoever may read the data anyway).
 *
 * An abstract socket's name is not protected by the folder's permissions: another local user can
 * bind it while no owner runs. So an owner proves itself: `GET /owner?challenge=…` answers with an
 * HMAC of the challenge under its token, which only a process that may read DATA_DIR can check
 * and only the one that wrote the token can give. A socket that answers without the proof is
 * reported as taken by a stranger, never trusted with commands.
 */
export type OwnerRole = 'service' | 'tool';

export interface OwnerInfo {
  pid: number;
  /** HMAC-SHA256 of the request's challenge under the owner's token (hex). */
  proof?: string;
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

/** How long a starting owner may take between binding its socket and writing its token. */
const PROOF_WAIT_MS = 2_000;

/** The owner of DATA_DIR's socket if it proves it holds the folder; undefined when nobody answers. */
async function provenOwner(dataDir: string): Promise<OwnerInfo | undefined> {
  // On the monotonic clock: a step of the wall clock (NTP) neither ends the wait at once nor stretches it.
  const deadline = performance.now() + PROOF_WAIT_MS;
  for (;;) {
    const challenge = randomBytes(16).toString('hex');
    const owner = await requestOwner<OwnerInfo>(dataDir, 'GET', `/owner?${OWNER_CHALLENGE}=${challenge}`).then((reply) => reply.body).catch(() => undefined);
    if (!owner) return undefined;
    let token: string | undefined;
    try {
      token = readOwnerToken(dataDir);
    } catch {
      // No token yet: an owner that has just bound its socket writes it next.
    }
    if (token !== undefined && owner.proof === ownerProof(token, challenge)) return owner;
    if (performance.now() >= deadline) {
      throw new BackendUnavailableError(
        'DATA_DIR',
        `the owner socket of ${dataDir} is held by a process that cannot prove it holds the folder (pid ${typeof owner.pid === 'number' ? owner.pid : 'unknown'}, by its own account): a service started from an earlier version, or another user's process that took the socket's name`,
        'restart the service if it is an earlier version; otherwise find the process with `ss -xlp | grep offer-ledger-data-dir` (as root for other users\' processes) and stop it, or set DATA_DIR to another folder',
      );
    }
    await pause(100);
  }
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
  // A fresh token per owner: a client must read it from DATA_DIR, i.e. be allowed to read the data.
  const token = randomBytes(24).toString('hex');
  const info: OwnerInfo = { pid: process.pid, role, description, started_at: new Date().toISOString(), accepting_commands: false };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://owner');
    if (request.method === 'GET' && url.pathname === '/owner') {
      const challenge = url.searchParams.get(OWNER_CHALLENGE);
      return sendJson(response, 200, challenge ? { ...info, proof: ownerProof(token, challenge) } : info);
    }
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
    const owner = await provenOwner(dataDir);
    if (owner || abstractSockets) throw new DataDirBusyError(dataDir, owner);
    // A socket file (systems without abstract sockets) whose owner died: nobody answers, so take it.
    rmSync(address, { force: true });
    await listen(server, address).catch((retry: NodeJS.ErrnoException) => {
      throw retry.code === 'EADDRINUSE' ? new DataDirBusyError(dataDir, undefined) : retry;
    });
  }

  // Written whole or not at all: a client reading it mid-write would take the owner for a stranger.
  const tokenFile = join(dataDir, OWNER_TOKEN_FILE);
  writeFileSync(`${tokenFile}.${process.pid}`, `${token}\n`, { mode: 0o600 });
  renameSync(`${tokenFile}.${process.pid}`, tokenFile);
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
