import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { encodeChecked, loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { evolve } from '../../projections/accounts/evolve.js';
import { EventType } from '../../schemas/generated/events.js';
import { planAccounts } from '../../services/admin/seed/accounts.js';
import { seededRandom, seedSize } from '../../services/admin/seed/seed-context.js';

const SECRET = 'seed-test-secret-0123456789abcdefghij';
const plan = (seed: number, offers = 500) =>
  planAccounts({ size: seedSize(offers), random: seededRandom(seed), now: () => new Date(Date.UTC(2026, 10, 22)) }, SECRET);

/** All events as one partition, in order: enough to fold the whole data set. */
const asLogged = (events: ReturnType<typeof plan>['events']): LoggedEvent[] =>
  events.map((event, index) => ({ ...event, topic: 'accounts', partition: 0, offset: String(index), schemaId: 0, timestamp: new Date(0) }));

describe('accounts seed plan', () => {
  const seeded = plan(1);

  it('has developers and applications in every status, keys of both application kinds, revoked keys and inactive placements', () => {
    expect(new Set(seeded.developers.map((d) => d.status))).toEqual(new Set(['active', 'suspended']));
    const ofActive = seeded.applications.filter((a) => a.developer_status === 'active');
    expect(new Set(ofActive.map((a) => a.status))).toEqual(new Set(['live', 'live_limited', 'paused', 'suspended']));
    expect(new Set(seeded.apiKeys.map((k) => k.kind))).toEqual(new Set(['live', 'test']));
    expect(seeded.apiKeys.some((k) => k.revoked)).toBe(true);
    expect(seeded.apiKeys.some((k) => k.kind === 'live' && !k.revoked)).toBe(true);
    expect(new Set(seeded.placements.map((p) => p.status))).toEqual(new Set(['active', 'inactive']));
    expect(seeded.developers).toHaveLength(seedSize(500).developers);
  });

  it('its events produce exactly the states it reports', () => {
    const changes = evolve(asLogged(seeded.events));
    for (const d of seeded.developers) expect(changes.developers.get(d.developer_id)?.status).toBe(d.status);
    for (const a of seeded.applications) expect(changes.applications.get(a.application_id)).toMatchObject({ status: a.status, developer_id: a.developer_id });
    for (const p of seeded.placements) expect(changes.placements.get(p.placement_id)?.status).toBe(p.status);
    for (const k of seeded.apiKeys) expect(changes.revocations.has(k.key_id)).toBe(k.revoked);
    expect(changes.designation).toMatchObject(seeded.defaultPlacement);
  });

  it('designates an active placement of a live application of an active developer as the default', () => {
    const application = seeded.applications.find((a) => a.application_id === seeded.defaultPlacement.application_id)!;
    expect(application).toMatchObject({ status: 'live', developer_status: 'active' });
    expect(application.placement_ids).toContain(seeded.defaultPlacement.placement_id);
    expect(seeded.placements.find((p) => p.placement_id === seeded.defaultPlacement.placement_id)?.status).toBe('active');
  });

  it('keeps each application history on its key, in order, with valid values and no clear key', () => {
    const catalog = loadSchemaCatalog();
    const firstOfApplication = new Map<string, string>();
    for (const event of seeded.events) {
      expect(() => encodeChecked(catalog.get(event.type)!, event.value)).not.toThrow();
      const value = event.value as { developer_id?: string; application_id?: string };
      if (event.type === EventType.DeveloperRegistered || event.type === EventType.DeveloperStatusChanged) expect(event.key).toBe(value.developer_id);
      else if (event.type !== EventType.DefaultPlacementDesignated) {
        expect(event.key).toBe(value.application_id);
        if (!firstOfApplication.has(event.key)) firstOfApplication.set(event.key, event.type);
      }
    }
    expect(new Set(firstOfApplication.values())).toEqual(new Set([EventType.ApplicationRegistered]));
    const text = JSON.stringify(seeded.events);
    for (const key of seeded.apiKeys) expect(text).not.toContain(key.key.slice(-20));
  });

  it('the same seed gives the same data set shape; another seed a different one', () => {
    const shape = (p: ReturnType<typeof plan>) =>
      JSON.stringify([p.developers.map((d) => [d.name, d.status]), p.applications.map((a) => [a.name, a.status, a.placement_ids.length]), p.apiKeys.map((k) => [k.kind, k.revoked]), p.events.map((e) => e.type)]);
    expect(shape(plan(1))).toBe(shape(seeded));
    expect(shape(plan(2))).not.toBe(shape(seeded));
  });

  it('scales with the offers flag', () => {
    expect(plan(1, 5000).applications.length).toBeGreaterThan(seeded.applications.length);
  });
});
