import { Type } from '@sinclair/typebox';
import { EventType, type ApplicationStatus } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { CommandInputError, defineCommand } from '../command.js';
import { accountEvent, newId } from './events.js';
import { requireDeveloper } from './guards.js';
import { applicationStatus, id, name } from './schema.js';

export const registerApplication = defineCommand({
  name: 'application:register',
  summary: 'Register an application under an active developer account; prints its application_id',
  reads: ['accounts'],
  writes: ['accounts'],
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
      throw new CommandInputError('developer_id', `developer ${input.developer_id} is suspended; reinstate it first`);
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
    const [appended] = await appendEvents(runtime, 'accounts', [event]);
    return { application_id: applicationId, status: input.status ?? 'live', event_id: event.value.event_id, ...appended };
  },
});
