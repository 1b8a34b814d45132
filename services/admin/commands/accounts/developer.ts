import { Type } from '@sinclair/typebox';
import { EventType, type DeveloperStatus } from '../../../../schemas/generated/events.js';
import { AdminInputError, defineCommand } from '../../command.js';
import { accountEvent, appendAccountEvents, newId } from './events.js';
import { requireDeveloper, requireNewStatus } from './guards.js';
import { developerStatus, id, name, reason } from './schema.js';

export const registerDeveloper = defineCommand({
  name: 'developer:register',
  summary: 'Register a developer account (starts active); prints its developer_id',
  input: Type.Object(
    {
      name: name('display name of the developer or company'),
      email: Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'contact address, unique across accounts' }),
    },
    { additionalProperties: false },
  ),
  async execute(input, { runtime, now }) {
    const email = input.email.toLowerCase();
    const { rows } = await runtime.db.query<{ developer_id: string }>('SELECT developer_id FROM account_developers WHERE email = $1', [email]);
    if (rows[0]) throw new AdminInputError('email', `is already registered to developer ${rows[0].developer_id}`);
    const developerId = newId();
    const event = accountEvent(EventType.DeveloperRegistered, {
      event_id: newId(),
      developer_id: developerId,
      name: input.name.trim(),
      email,
      registered_at: now().getTime(),
    });
    const [appended] = await appendAccountEvents(runtime, [event]);
    return { developer_id: developerId, event_id: event.value.event_id, ...appended };
  },
});

export const setDeveloperStatus = defineCommand({
  name: 'developer:set-status',
  summary: 'Suspend or reinstate a developer account (suspended accounts get 403 DEVELOPER_SUSPENDED)',
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
    const [appended] = await appendAccountEvents(runtime, [event]);
    return { developer_id: input.developer_id, status: input.status, previous_status: developer.status, event_id: event.value.event_id, ...appended };
  },
});
