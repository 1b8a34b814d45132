import { Type } from '@sinclair/typebox';
import { EventType, type ApplicationStatus } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { defineCommand } from '../command.js';
import { accountEvent, newId } from './events.js';
import { requireApplication, requireNewStatus } from './guards.js';
import { applicationStatus, id, reason } from './schema.js';

export const setApplicationStatus = defineCommand({
  name: 'application:set-status',
  summary: 'Change an application status: live and live_limited serve; paused and suspended get 403 APPLICATION_NOT_SERVING',
  reads: ['accounts'],
  writes: ['accounts'],
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
    const [appended] = await appendEvents(runtime, 'accounts', [event]);
    return { application_id: input.application_id, status: input.status, previous_status: application.status, event_id: event.value.event_id, ...appended };
  },
});
