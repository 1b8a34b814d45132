import { Type } from '@sinclair/typebox';
import { findDefaultPlacement } from '../../projections/accounts/queries.js';
import { EventType, type PlacementStatus } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { CommandInputError, defineCommand } from '../command.js';
import { accountEvent, newId } from './events.js';
import { requireNewStatus, requirePlacement } from './guards.js';
import { id, placementStatus } from './schema.js';

export const setPlacementStatus = defineCommand({
  name: 'placement:set-status',
  summary: 'Activate or deactivate a placement (not the default placement: designate another first)',
  reads: ['accounts'],
  writes: ['accounts'],
  input: Type.Object({ placement_id: id('the placement'), status: placementStatus }, { additionalProperties: false }),
  async execute(input, { runtime, now }) {
    const placement = await requirePlacement(runtime.db, input.placement_id);
    requireNewStatus(placement.status, input.status, `placement ${input.placement_id}`);
    if (input.status === 'inactive' && (await findDefaultPlacement(runtime.db))?.placement_id === input.placement_id) {
      throw new CommandInputError('placement_id', 'is the default placement (anonymous serving); designate another one first');
    }
    const event = accountEvent(EventType.PlacementStatusChanged, {
      event_id: newId(),
      placement_id: input.placement_id,
      application_id: placement.application_id,
      status: input.status as PlacementStatus,
      changed_at: now().getTime(),
    });
    const [appended] = await appendEvents(runtime, 'accounts', [event]);
    return { placement_id: input.placement_id, status: input.status, previous_status: placement.status, event_id: event.value.event_id, ...appended };
  },
});
