import { Type } from '@sinclair/typebox';
import { EventType, type ApplicationStatus } from '../../../../schemas/generated/events.js';
import { AdminInputError, defineCommand } from '../../command.js';
import { accountEvent, appendAccountEvents, newId } from './events.js';
import { requireApplication, requireDeveloper, requireNewStatus } from './guards.js';
import { applicationStatus, id, name, reason } from './schema.js';

export const registerApplication = defineCommand({
  name: 'application:register',
  summary: 'Register an application under an active developer account; prints its application_id',
  input: Type.Object(
    {
      developer_id: id('the developer account that owns the application'),
      name: name('display name of the application'),
      status: Type.Optional({ ...applicationStatus, description: `initial status: ${applicationStatus.description} (default live)` }),
    },
    { additionalProperties: false },
  ),
  async execute(input, { runtime, now }) {
    const developer = await requireDeveloper(runtime.db, input.developer_id);
    if (developer.status === 'suspended') {
      throw new AdminInputError('developer_id', `developer ${input.developer_id} is suspended; reinstate it first`);
    }
    const applicationId = newId();
    const event = accountEvent(EventType.ApplicationRegistered, {
      event_id: newId(),
      application_id: applicationId,
      developer_id: input.developer_id,
      name: input.name.trim(),
      status: (input.status ?? 'live') as ApplicationStatus,
      registered_at: now().getTime(),
    });
    const [appended] = await appendAccountEvents(runtime, [event]);
    return { application_id: applicationId, status: input.status ?? 'live', event_id: event.value.event_id, ...appended };
  },
});

export const setApplicationStatus = defineCommand({
  name: 'application:set-status',
  summary: 'Change an application status: live and live_limited serve; paused and suspended get 403 APPLICATION_NOT_SERVING',
  input: Type.Object(
    { application_id: id('the application'), status: applicationStatus, reason },
    { additionalProperties: false },
  ),
  async execute(input, { runtime, now }) {
    const application = await requireApplication(runtime.db, input.application_id);
    requireNewStatus(application.status, input.status, `application ${input.application_id}`);
    const event = accountEvent(EventType.ApplicationStatusChanged, {
      event_id: newId(),
      application_id: input.application_id,
      status: input.status as ApplicationStatus,
      reason: input.reason ?? null,
      changed_at: now().getTime(),
    });
    const [appended] = await appendAccountEvents(runtime, [event]);
    return { application_id: input.application_id, status: input.status, previous_status: application.status, event_id: event.value.event_id, ...appended };
  },
});
