import { Type } from '@sinclair/typebox';
import { EventType } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { CommandInputError, defineCommand } from '../command.js';
import { accountEvent, newId } from './events.js';
import { requireApiKey } from './guards.js';
import { id, reason } from './schema.js';

export const revokeKey = defineCommand({
  name: 'api-key:revoke',
  summary: 'Revoke an API key (live, test or the sandbox key) for good',
  reads: ['accounts'],
  writes: ['accounts'],
  input: Type.Object({ key_id: id('the key to revoke'), reason }, { additionalProperties: false }),
  async execute(input, { runtime, now }) {
    const key = await requireApiKey(runtime.db, input.key_id);
    if (key.revoked) throw new CommandInputError('key_id', `API key ${input.key_id} is already revoked`);
    const event = accountEvent(EventType.ApiKeyRevoked, {
      event_id: newId(),
      key_id: key.key_id,
      application_id: key.application_id,
      reason: input.reason ?? null,
      revoked_at: now().getTime(),
    });
    const [appended] = await appendEvents(runtime, 'accounts', [event]);
    return { key_id: key.key_id, kind: key.kind, display_prefix: key.display_prefix, event_id: event.value.event_id, ...appended };
  },
});
