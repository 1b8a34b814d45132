import { Type } from '@sinclair/typebox';
import { findDeveloperByEmail } from '../../projections/accounts/queries.js';
import { EventType } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { CommandInputError, defineCommand } from '../command.js';
import { emailAddress } from '../input.js';
import { accountEvent, newId } from './events.js';
import { name } from './schema.js';

export const registerDeveloper = defineCommand({
  name: 'developer:register',
  summary: 'Register a developer account (starts active); prints its developer_id',
  reads: ['accounts'],
  writes: ['accounts'],
  input: Type.Object(
    {
      name: name('display name of the developer or company'),
      email: emailAddress('contact address, unique across accounts'),
    },
    { additionalProperties: false },
  ),
  async execute(input, { runtime, now }) {
    const email = input.email.toLowerCase();
    const existing = await findDeveloperByEmail(runtime.db, email);
    if (existing) throw new CommandInputError('email', `is already registered to developer ${existing.developer_id}`);
    const developerId = newId();
    const event = accountEvent(EventType.DeveloperRegistered, {
      event_id: newId(),
      developer_id: developerId,
      name: input.name.trim(),
      email,
      registered_at: now().getTime(),
    });
    const [appended] = await appendEvents(runtime, 'accounts', [event]);
    return { developer_id: developerId, event_id: event.value.event_id, ...appended };
  },
});
