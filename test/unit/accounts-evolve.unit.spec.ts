import { describe, expect, it } from 'vitest';
import { DEFAULT_PLACEMENT_KEY, accountEvent, issueApiKey } from '../../commands/accounts/events.js';
import type { LoggedEvent, NewEvent } from '../../platform/events/event-log.js';
import { encodeChecked, loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { evolve } from '../../projections/accounts/evolve.js';
import { EventType } from '../../schemas/generated/events.js';

const T = Date.UTC(2026, 10, 22, 12);
const dev = '01900000-0000-7000-8000-0000000000d1';
const app = '01900000-0000-7000-8000-0000000000a1';
const place = '01900000-0000-7000-8000-0000000000b1';

/** Given these events at offsets 0, 1, 2... of one partition. */
function logged(events: NewEvent[], firstOffset = 0): LoggedEvent[] {
  return events.map((event, index) => ({
    topic: 'accounts', partition: 0, offset: String(firstOffset + index), key: event.key, type: event.type,
    value: event.value, schemaId: 1, timestamp: new Date(T),
  }));
}

const registered = accountEvent(EventType.DeveloperRegistered, { event_id: 'e1', developer_id: dev, name: 'Acme', email: 'a@acme.test', registered_at: T });
const suspended = accountEvent(EventType.DeveloperStatusChanged, { event_id: 'e2', developer_id: dev, status: 'suspended', reason: 'fraud', changed_at: T + 1 });
const appRegistered = accountEvent(EventType.ApplicationRegistered, { event_id: 'e3', application_id: app, developer_id: dev, name: 'Game', status: 'live', registered_at: T });
const appPaused = accountEvent(EventType.ApplicationStatusChanged, { event_id: 'e4', application_id: app, status: 'paused', reason: null, changed_at: T + 2 });
const placementCreated = accountEvent(EventType.PlacementCreated, { event_id: 'e5', placement_id: place, application_id: app, name: 'feed', status: 'active', created_at: T });
const placementOff = accountEvent(EventType.PlacementStatusChanged, { event_id: 'e6', placement_id: place, application_id: app, status: 'inactive', changed_at: T + 3 });
const designated = accountEvent(EventType.DefaultPlacementDesignated, { event_id: 'e7', placement_id: place, application_id: app, designated_at: T });

describe('accounts events', () => {
  it('are keyed by developer, by application, by key id for the sandbox key, and by one constant key for designations', () => {
    expect(registered.key).toBe(dev);
    expect(suspended.key).toBe(dev);
    for (const event of [appRegistered, appPaused, placementCreated, placementOff]) expect(event.key).toBe(app);
    expect(designated.key).toBe(DEFAULT_PLACEMENT_KEY);
    const issued = issueApiKey('s'.repeat(32), { kind: 'live', application_id: app, label: null, issued_at: new Date(T) });
    expect(issued.event.key).toBe(app);
    const sandboxRevoked = accountEvent(EventType.ApiKeyRevoked, { event_id: 'e', key_id: 'k1', application_id: null, reason: null, revoked_at: T });
    expect(sandboxRevoked.key).toBe('k1');
  });

  it('match their Avro schemas, and an issued key event carries no clear key', () => {
    const catalog = loadSchemaCatalog();
    const issued = issueApiKey('s'.repeat(32), { kind: 'test', application_id: app, label: 'ci', issued_at: new Date(T) });
    for (const event of [registered, suspended, appRegistered, appPaused, placementCreated, placementOff, designated, issued.event]) {
      expect(() => encodeChecked(catalog.get(event.type)!, event.value)).not.toThrow();
    }
    expect(issued.key).toMatch(/^svc_test_/);
    expect(JSON.stringify(issued.event)).not.toContain(issued.key.slice('svc_test_'.length));
    expect(issued.value.display_prefix).toBe(issued.key.slice(0, 15));
  });
});

describe('accounts fold (evolve)', () => {
  it('a row created in the batch carries its final status and the last position', () => {
    const changes = evolve(logged([registered, suspended, appRegistered, appPaused, placementCreated, placementOff]));
    expect(changes.developers.get(dev)).toMatchObject({ status: 'suspended', status_reason: 'fraud', last_offset: '1', last_event_id: 'e2' });
    expect(changes.developers.get(dev)!.status_changed_at).toEqual(new Date(T + 1));
    expect(changes.applications.get(app)).toMatchObject({ status: 'paused', developer_id: dev, last_offset: '3' });
    expect(changes.placements.get(place)).toMatchObject({ status: 'inactive', application_id: app, last_offset: '5' });
    expect(changes.developerStatus.size + changes.applicationStatus.size + changes.placementStatus.size).toBe(0);
  });

  it('a change to a row from an earlier batch is kept as the last change for that row', () => {
    const reinstated = accountEvent(EventType.DeveloperStatusChanged, { event_id: 'e8', developer_id: dev, status: 'active', reason: null, changed_at: T + 9 });
    const changes = evolve(logged([suspended, reinstated], 10));
    expect(changes.developers.size).toBe(0);
    expect(changes.developerStatus.get(dev)).toMatchObject({ status: 'active', last_offset: '11', last_event_id: 'e8' });
  });

  it('keys: issue, then the first revocation counts', () => {
    const issued = issueApiKey('s'.repeat(32), { kind: 'live', application_id: app, label: null, issued_at: new Date(T) });
    const revoke = (eventId: string, reason: string) =>
      accountEvent(EventType.ApiKeyRevoked, { event_id: eventId, key_id: issued.value.key_id, application_id: app, reason, revoked_at: T + 5 });
    const changes = evolve(logged([issued.event, revoke('r1', 'leaked'), revoke('r2', 'again')]));
    expect(changes.keys.get(issued.value.key_id)).toMatchObject({ kind: 'live', key_hash: issued.value.key_hash, application_id: app });
    expect(changes.revocations.get(issued.value.key_id)).toMatchObject({ reason: 'leaked', last_event_id: 'r1' });
  });

  it('the last designation in a batch wins; events of other topics are ignored', () => {
    const other = accountEvent(EventType.DefaultPlacementDesignated, { event_id: 'e9', placement_id: 'p2', application_id: 'a2', designated_at: T + 1 });
    const foreign: NewEvent = { key: 'x', type: EventType.CatalogEntryRemoved, value: {} };
    const changes = evolve(logged([designated, other, foreign]));
    expect(changes.designation).toMatchObject({ placement_id: 'p2', application_id: 'a2', last_offset: '1' });
  });
});
