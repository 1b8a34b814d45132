import { setTimeout as pause } from 'node:timers/promises';
import { readOwnerToken, requestOwner, type OwnerReply } from './owner-client.js';

/** The envelope the owner's job routes (`/replays`, `/exports`) answer with. */
export interface OwnerJobEnvelope<J> {
  code: string;
  message: string;
  data: { job?: J };
  extra: { field?: string };
}

/** How long to wait for a service that is still opening its database. */
const WAIT_FOR_OWNER_MS = 60_000;

/** Requests to the job routes of DATA_DIR's owner, with the token it keeps there. */
export function ownerJobCalls<J>(dataDir: string) {
  return (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<OwnerReply<OwnerJobEnvelope<J>>> =>
    requestOwner<OwnerJobEnvelope<J>>(dataDir, method, path, { body, token: readOwnerToken(dataDir), timeoutMs: 30_000 });
}

/**
 * Starts a job on the owner of DATA_DIR (POST `path` with `body`), waiting up to a minute for an
 * owner still opening its database: the job it accepted (202), or its refusal as it came.
 */
export async function startOwnerJob<J>(dataDir: string, path: string, body: unknown): Promise<{ job: J } | { refusal: OwnerReply<OwnerJobEnvelope<J>> }> {
  const call = ownerJobCalls<J>(dataDir);
  // On the monotonic clock: a step of the wall clock (NTP) neither ends the wait at once nor stretches it.
  const deadline = performance.now() + WAIT_FOR_OWNER_MS;
  for (;;) {
    const reply = await call('POST', path, body);
    if (reply.status === 202) return { job: reply.body.data.job! };
    if (reply.body.code !== 'OWNER_NOT_READY' || performance.now() >= deadline) return { refusal: reply };
    await pause(200);
  }
}
