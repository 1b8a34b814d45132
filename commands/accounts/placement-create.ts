import { Type } from '@sinclair/typebox';
import { EventType, type PlacementStatus } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { defineCommand } from '../command.js';
import { accountEvent, newId } from './events.js';
import { requireApplicationAcceptingCredentials } from './guards.js';
import { id, name, placementStatus } from './schema.js';

export const createPlacement = defineCommand({
  name: 'placement:create',
  summary: 'Create a placement owned by one application; prints its placement_id',
  reads: ['accounts'],
  writes: ['accounts'],
  input: Type.Object(
    {
      application_id: id('the application that owns the placement'),
      name: name('display name of the placement, e.g. "home feed"'),
      status: Type.Optional({ ...placementStatus, description: `initial status: ${placementStatus.description} (default active)` }),
    },
    { additionalProperties: false },
  ),
  async execute(input, { runtime, now }) {
    await requireApplicationAcceptingCredentials(runtime.db, input.application_id);
    const placementId = newId();
    const event = accountEvent(EventType.PlacementCreated, {
      event_id: newId(),
      placement_id: placementId,
      application_id: input.application_id,
      name: input.name.trim(),
      status: (input.status ?? 'active') as PlacementStatus,
      created_at: now().getTime(),
    });
    const [appended] = await appendEvents(runtime, 'accounts', [event]);
    return { placement_id: placementId, application_id: input.application_id, status: input.status ?? 'active', event_id: event.value.event_id, ...appended };
  },
});
