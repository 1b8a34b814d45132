import { Type } from '@sinclair/typebox';
import { findDefaultPlacement } from '../../../../projections/accounts/queries.js';
import { EventType, type PlacementStatus } from '../../../../schemas/generated/events.js';
import { AdminInputError, defineCommand } from '../../command.js';
import { accountEvent, appendAccountEvents, newId } from './events.js';
import { requireApplication, requireApplicationAcceptingCredentials, requireNewStatus, requirePlacement } from './guards.js';
import { id, name, placementStatus } from './schema.js';

export const createPlacement = defineCommand({
  name: 'placement:create',
  summary: 'Create a placement owned by one application; prints its placement_id',
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
    const [appended] = await appendAccountEvents(runtime, [event]);
    return { placement_id: placementId, application_id: input.application_id, status: input.status ?? 'active', event_id: event.value.event_id, ...appended };
  },
});

export const setPlacementStatus = defineCommand({
  name: 'placement:set-status',
  summary: 'Activate or deactivate a placement (not the default placement: designate another first)',
  input: Type.Object({ placement_id: id('the placement'), status: placementStatus }, { additionalProperties: false }),
  async execute(input, { runtime, now }) {
    const placement = await requirePlacement(runtime.db, input.placement_id);
    requireNewStatus(placement.status, input.status, `placement ${input.placement_id}`);
    if (input.status === 'inactive' && (await findDefaultPlacement(runtime.db))?.placement_id === input.placement_id) {
      throw new AdminInputError('placement_id', 'is the default placement (anonymous serving); designate another one first');
    }
    const event = accountEvent(EventType.PlacementStatusChanged, {
      event_id: newId(),
      placement_id: input.placement_id,
      application_id: placement.application_id,
      status: input.status as PlacementStatus,
      changed_at: now().getTime(),
    });
    const [appended] = await appendAccountEvents(runtime, [event]);
    return { placement_id: input.placement_id, status: input.status, previous_status: placement.status, event_id: event.value.event_id, ...appended };
  },
});

export const designateDefaultPlacement = defineCommand({
  name: 'default-placement:designate',
  summary: 'Make an active placement of a serving application the default for anonymous Query requests',
  input: Type.Object({ placement_id: id('the placement that becomes the default') }, { additionalProperties: false }),
  async execute(input, { runtime, now }) {
    const placement = await requirePlacement(runtime.db, input.placement_id);
    if (placement.status !== 'active') throw new AdminInputError('placement_id', `placement ${input.placement_id} is inactive`);
    const application = await requireApplication(runtime.db, placement.application_id, 'placement_id');
    if (application.status !== 'live' && application.status !== 'live_limited') {
      throw new AdminInputError('placement_id', `its application ${application.application_id} is ${application.status}, so it cannot serve`);
    }
    if (application.developer_status !== 'active') {
      throw new AdminInputError('placement_id', `the developer ${application.developer_id} of its application is not active`);
    }
    if ((await findDefaultPlacement(runtime.db))?.placement_id === input.placement_id) {
      throw new AdminInputError('placement_id', 'is already the default placement');
    }
    const event = accountEvent(EventType.DefaultPlacementDesignated, {
      event_id: newId(),
      placement_id: input.placement_id,
      application_id: placement.application_id,
      designated_at: now().getTime(),
    });
    const [appended] = await appendAccountEvents(runtime, [event]);
    return { placement_id: input.placement_id, application_id: placement.application_id, event_id: event.value.event_id, ...appended };
  },
});
