import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountEvent } from '../../commands/accounts/events.js';
import type { LoggedEvent, NewEvent } from '../../platform/events/event-log.js';
import { accountsProjection } from '../../projections/accounts/projection.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';

// The accounts projection's own guard beside the runner's offsets (projections/accounts/README.md):
// a row carries the position of the last event applied to it, so an older event handed to the
// projection again (past the runner, as a replay or a redelivery would) cannot move it back.
let t: TestRuntime;
const T = Date.UTC(2026, 10, 22, 12);
const dev = '01900000-0000-7000-8000-0000000000d2';
const app = '01900000-0000-7000-8000-0000000000a2';

const registered = accountEvent(EventType.DeveloperRegistered, { event_id: 'p1', developer_id: dev, name: 'Acme', email: 'a@acme.test', registered_at: T });
const appRegistered = accountEvent(EventType.ApplicationRegistered, { event_id: 'p2', application_id: app, developer_id: dev, name: 'Game', status: 'live_limited', registered_at: T });
const appPaused = accountEvent(EventType.ApplicationStatusChanged, { event_id: 'p3', application_id: app, status: 'paused', reason: 'review', changed_at: T + 1 });
const appLive = accountEvent(EventType.ApplicationStatusChanged, { event_id: 'p4', application_id: app, status: 'live', reason: 'review passed', changed_at: T + 2 });

/** The events at their offsets of one partition, as the log hands them over. */
function at(entries: [NewEvent, number][]): LoggedEvent[] {
  return entries.map(([event, offset]) => ({
    topic: 'accounts', partition: 0, offset: String(offset), key: event.key, type: event.type, value: event.value, schemaId: 1, timestamp: new Date(T),
  }));
}

const apply = (events: LoggedEvent[]) => t.runtime.db.transaction((tx) => accountsProjection.apply(tx, events));
const application = async () =>
  (await t.runtime.db.query<Record<string, unknown>>('SELECT status, status_reason, last_offset, last_event_id FROM account_applications WHERE application_id = $1', [app])).rows[0];

beforeAll(async () => {
  t = await createTestRuntime();
});
afterAll(() => t?.close());

describe('accounts projection positions', () => {
  it('an older registration or status change applied again moves no row back', async () => {
    await apply(at([[registered, 0], [appRegistered, 1]]));
    await apply(at([[appPaused, 2]]));
    await apply(at([[appLive, 3]]));
    const current = { status: 'live', status_reason: 'review passed', last_offset: '3', last_event_id: 'p4' };
    expect(await application()).toEqual(current);

    // The registration again (an upsert of a row already there), then the older status change.
    await apply(at([[registered, 0], [appRegistered, 1]]));
    expect(await application()).toEqual(current);
    await apply(at([[appPaused, 2]]));
    expect(await application()).toEqual(current);
    // The latest event again changes nothing either.
    await apply(at([[appLive, 3]]));
    expect(await application()).toEqual(current);
  });
});
