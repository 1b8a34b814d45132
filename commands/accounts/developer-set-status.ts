import { Type } from '@sinclair/typebox';
import { EventType, type DeveloperStatus } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { defineCommand } from '../command.js';
import { accountEvent, newId } from './events.js';
import { requireDeveloper, requireNewStatus } from './guards.js';
import { developerStatus, id, reason } from './schema.js';

export const setDeveloperStatus = defineCommand({
  name: 'developer:set-status',
  summary: 'Suspend or reinstate a developer account (suspended accounts get 403 DEVELOPER_SUSPENDED)',
  reads: ['accounts'],
  writes: ['accounts'],
  input: Type.Object(
    { developer_id: id('the developer account'), status: developerStatus, reason },
    { additionalProperties: false },
  ),
  async execute(input, { runtime, now }) {
    const developer = await requireDeveloper(runtime.db, input.developer_id);
    requireNewStatus(developer.status, input.status, `developer ${input.developer_id}`);
    const event = accountEvent(EventType.DeveloperStatusChanged, {
      event_id: newId(),
      developer_id: input.developer_id,
      status: input.status as DeveloperStatus,
      reason: input.reason ?? null,
      changed_at: now().getTime(),
    });
    const [appended] = await appendEvents(runtime, 'accounts', [event]);
    return { developer_id: input.developer_id, status: input.status, previous_status: developer.status, event_id: event.value.event_id, ...appended };
  },
});
