import { accountEvent, issueApiKey, newId } from '../../commands/accounts/events.js';
import { appendEvents } from '../../commands/append.js';
import { keyHashSecretOf } from '../../platform/config/key-hash-secret.js';
import type { Runtime } from '../../platform/runtime.js';
import { EventType } from '../../schemas/generated/events.js';

export interface BuiltApplication {
  developer_id: string;
  application_id: string;
  placement_id: string;
  /** The clear live key of the application. */
  key: string;
}

/**
 * `count` live applications of one active developer, each with an active placement and a live
 * key, appended as one batch of accounts events (the events the admin commands append) and applied
 * before it resolves. For tests that need many applications at once.
 */
export async function buildApplications(runtime: Runtime, count: number, timeoutMs = 60_000): Promise<BuiltApplication[]> {
  const now = Date.now();
  const secret = keyHashSecretOf(runtime.config);
  const developer_id = newId();
  const events = [
    accountEvent(EventType.DeveloperRegistered, { event_id: newId(), developer_id, name: 'Many apps', email: `${developer_id}@apps.test`, registered_at: now }),
  ];
  const built: BuiltApplication[] = [];
  for (let index = 0; index < count; index += 1) {
    const application_id = newId();
    const placement_id = newId();
    events.push(
      accountEvent(EventType.ApplicationRegistered, { event_id: newId(), application_id, developer_id, name: `app ${index}`, status: 'live', registered_at: now }),
      accountEvent(EventType.PlacementCreated, { event_id: newId(), placement_id, application_id, name: 'main', status: 'active', created_at: now }),
    );
    const issued = issueApiKey(secret, { kind: 'live', application_id, label: null, issued_at: new Date(now) });
    events.push(issued.event);
    built.push({ developer_id, application_id, placement_id, key: issued.key });
  }
  const appended = await appendEvents(runtime, 'accounts', events);
  const watermarks = await runtime.watermarks();
  if (!(await watermarks.awaitApplied('accounts', appended, timeoutMs))) throw new Error('the accounts read model did not apply the applications in time');
  return built;
}
