import { Type } from '@sinclair/typebox';
import { findDefaultPlacement } from '../../projections/accounts/queries.js';
import { EventType } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { CommandInputError, defineCommand } from '../command.js';
import { accountEvent, newId } from './events.js';
import { requireApplication, requirePlacement } from './guards.js';
import { id } from './schema.js';

export const designateDefaultPlacement = defineCommand({
  name: 'default-placement:designate',
  summary: 'Make an active placement of a serving application the default for anonymous Query requests',
  reads: ['accounts'],
  writes: ['accounts'],
  input: Type.Object({ placement_id: id('the placement that becomes the default') }, { additionalProperties: false }),
  async execute(input, { runtime, now }) {
    const placement = await requirePlacement(runtime.db, input.placement_id);
    if (placement.status !== 'active') throw new CommandInputError('placement_id', `placement ${input.placement_id} is inactive`);
    const application = await requireApplication(runtime.db, placement.application_id, 'placement_id');
    if (application.status !== 'live' && application.status !== 'live_limited') {
      throw new CommandInputError('placement_id', `its application ${application.application_id} is ${application.status}, so it cannot serve`);
    }
    if (application.developer_status !== 'active') {
      throw new CommandInputError('placement_id', `the developer ${application.developer_id} of its application is not active`);
    }
    if ((await findDefaultPlacement(runtime.db))?.placement_id === input.placement_id) {
      throw new CommandInputError('placement_id', 'is already the default placement');
    }
    const event = accountEvent(EventType.DefaultPlacementDesignated, {
      event_id: newId(),
      placement_id: input.placement_id,
      application_id: placement.application_id,
      designated_at: now().getTime(),
    });
    const [appended] = await appendEvents(runtime, 'accounts', [event]);
    return { placement_id: input.placement_id, application_id: placement.application_id, event_id: event.value.event_id, ...appended };
  },
});
