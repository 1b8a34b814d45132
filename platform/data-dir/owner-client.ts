import { createHash, createHmac } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { makeFolder } from '../fs/make-folder.js';

/** File in DATA_DIR holding the current owner's command token (owner-only permissions). */
export const OWNER_TOKEN_FILE = 'owner-token';

/** The query parameter of `GET /owner` an owner proves itself with. */
export const OWNER_CHALLENGE = 'challenge';

/** What an owner answers to a challenge: HMAC-SHA256 under its token, hex. */
export function ownerProof(token: string, challenge: string): string {
  return createHmac('sha256', token).update(challenge).digest('hex');
}

/** Linux has abstract sockets (no file, released by the kernel); elsewhere a socket file in the folder. */
export const abstractSockets = process.platform === 'linux';

/** The owner socket of a folder; the same folder (by real path) always gives the same address. */
export function ownerAddress(dataDir: string): string {
  // A new DATA_DIR is this user's alone (it holds the database and the owner token).
  makeFolder(dataDir, 0o700);
  const real = realpathSync(dataDir);
  if (!abstractSockets) return join(real, 'owner.sock');
  return `\0offer-ledger-data-dir-${createHash('sha256').update(real).digest('hex').slice(0, 32)}`;
}

export interface OwnerReply<T> {
  status: number;
  body: T;
}

/** One HTTP request to the owner of DATA_DIR over its socket; rejects when nobody listens. */
export function requestOwner<T>(
  dataDir: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options: { body?: unknown; token?: string; timeoutMs?: number } = {},
): Promise<OwnerReply<T>> {
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        socketPath: ownerAddress(dataDir),
        // A fresh connection each time: a kept-alive one the owner has just timed out resets the request.
        agent: false,
        method,
        path,
        headers: {
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
        timeout: options.timeoutMs ?? 5_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          try {
            resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as T });
          } catch (error) {
            reject(error);
          }
        });
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`the owner of ${dataDir} did not answer in time`)));
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** The token the current owner wrote; only a process that may read DATA_DIR can send it commands. */
export function readOwnerToken(dataDir: string): string {
  return readFileSync(join(dataDir, OWNER_TOKEN_FILE), 'utf8').trim();
}
