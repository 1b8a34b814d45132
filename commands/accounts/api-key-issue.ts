import { Type } from '@sinclair/typebox';
import { keyHashSecretOf } from '../../platform/config/key-hash-secret.js';
import { appendEvents } from '../append.js';
import { defineCommand } from '../command.js';
import { issueApiKey } from './events.js';
import { requireApplicationAcceptingCredentials } from './guards.js';
import { displayText } from '../input.js';
import { id, keyKind } from './schema.js';

export const issueKey = defineCommand({
  name: 'api-key:issue',
  summary: 'Issue a live or test API key for an application; the key is printed once and never stored in clear',
  reads: ['accounts'],
  writes: ['accounts'],
  input: Type.Object(
    {
      application_id: id('the application that owns the key'),
      kind: Type.Optional({ ...keyKind, description: 'live (svc_live_, for the offer routes) or test (svc_test_); default live' }),
      label: Type.Optional(displayText('free label, e.g. the server that will use the key')),
    },
    { additionalProperties: false },
  ),
  async execute(input, { runtime, now }) {
    await requireApplicationAcceptingCredentials(runtime.db, input.application_id);
    const issued = issueApiKey(keyHashSecretOf(runtime.config), {
      kind: (input.kind ?? 'live') as 'live' | 'test',
      application_id: input.application_id,
      label: input.label ?? null,
      issued_at: now(),
    });
    const [appended] = await appendEvents(runtime, 'accounts', [issued.event]);
    return {
      key_id: issued.value.key_id,
      kind: issued.value.kind,
      application_id: input.application_id,
      display_prefix: issued.value.display_prefix,
      key: issued.key,
      notice: 'store this key now: it is shown only this once and cannot be recovered',
      event_id: issued.value.event_id,
      ...appended,
    };
  },
});
