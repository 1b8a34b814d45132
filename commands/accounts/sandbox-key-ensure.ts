import { Type } from '@sinclair/typebox';
import { keyHashSecretOf } from '../../platform/config/key-hash-secret.js';
import type { Sql } from '../../platform/db/db.js';
import type { NewEvent } from '../../platform/events/event-log.js';
import { displayPrefix, hashApiKey, sandboxKey } from '../../projections/accounts/api-keys.js';
import { sandboxKeyHistory } from '../../projections/accounts/queries.js';
import { EventType } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { defineCommand } from '../command.js';
import { accountEvent, newId } from './events.js';

/**
 * The active sandbox key, or the event that issues the next generation when none is active.
 * The key is derived from the secret and a generation number, so it can be shown on every call
 * while only its hash is stored. A revoked generation is never reused.
 */
export async function activeOrNextSandboxKey(sql: Sql, secret: string, now: Date): Promise<{ key_id: string; key: string; event?: NewEvent }> {
  const history = await sandboxKeyHistory(sql);
  const active = history.find((row) => !row.revoked);
  if (active) {
    for (let generation = 0; generation <= history.length; generation += 1) {
      const key = sandboxKey(secret, generation);
      if (hashApiKey(secret, key) === active.key_hash) return { key_id: active.key_id, key };
    }
    throw new Error('the active sandbox key was not derived from this KEY_HASH_SECRET; revoke it and run sandbox-key:ensure again');
  }
  const hashes = new Set(history.map((row) => row.key_hash));
  let generation = history.length;
  while (hashes.has(hashApiKey(secret, sandboxKey(secret, generation)))) generation += 1;
  const key = sandboxKey(secret, generation);
  const event = accountEvent(EventType.ApiKeyIssued, {
    event_id: newId(),
    key_id: newId(),
    kind: 'sandbox',
    key_hash: hashApiKey(secret, key),
    display_prefix: displayPrefix(key),
    application_id: null,
    label: 'shared public sandbox key',
    issued_at: now.getTime(),
  });
  return { key_id: event.value.key_id as string, key, event };
}

export const ensureSandboxKey = defineCommand({
  name: 'sandbox-key:ensure',
  summary: 'Print the shared public sandbox key (svc_sandbox_), issuing it first when none is active',
  reads: ['accounts'],
  writes: ['accounts'],
  input: Type.Object({}, { additionalProperties: false }),
  async execute(_input, { runtime, now }) {
    const sandbox = await activeOrNextSandboxKey(runtime.db, keyHashSecretOf(runtime.config), now());
    if (!sandbox.event) return { key_id: sandbox.key_id, kind: 'sandbox', key: sandbox.key, issued: false };
    const [appended] = await appendEvents(runtime, 'accounts', [sandbox.event]);
    return { key_id: sandbox.key_id, kind: 'sandbox', key: sandbox.key, issued: true, event_id: sandbox.event.value.event_id, ...appended };
  },
});
