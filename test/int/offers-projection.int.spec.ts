import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkRegisteredEvent } from '../../commands/offers/link-register.js';
import { snapshotPublishedEvent } from '../../commands/offers/publish-snapshot.js';
import { offerUpsertedEvent } from '../../commands/offers/upsert.js';
import { partnerConfiguredEvent } from '../../commands/partners/configure.js';
import type { NewEvent } from '../../platform/events/event-log.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { readSnapshotContent } from '../../projections/offers/details.js';
import { offerTargeting } from '../../projections/offers/internal/queries.js';
import { linkUrl, parseTrackedLink } from '../../projections/offers/links/parse-link.js';
import { findLinkTarget } from '../../projections/offers/links/link-target.js';
import { partnerOfferProjections } from '../../projections/offers/projections.js';
import { findOffer, selectRemoteSnapshot } from '../../projections/offers/queries.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { replayProjection } from '../support/replay.js';
import { waitFor } from '../support/wait-for.js';

// Every partners/offers event type through real Kafka into the read models, then the two reads
// the offer info route builds on: link lookup and remote snapshot selection.
let t: TestRuntime;
let running: RunningProjection[] = [];
const now = new Date('2026-03-01T12:00:00Z');
const PARTNER = '01939c5e-7b1a-7c3e-9f00-0000000000aa';
const LOCAL = '01939c5e-7b1a-7c3e-9f00-000000000001';
const REMOTE = '01939c5e-7b1a-7c3e-9f00-000000000002';
const INSTANCE = '01939c5e-7b1a-7c3e-9f00-00000000c0de';
const SECRETS = ['SECRET-API-KEY', 'CONTRACT-NET-30', 'RANKING-HINT', 'https://partner.example.test/realtime'];

const details = (title = 'Spring sale') => ({
  offer_info: { title, category: { id: 'shopping' }, description: 'Up to 30 % off.' },
  entity: { id: 'ent-1', name: 'Acme Shop', type: 'merchant' },
  goals: [
    { event: 'install', pricing: { model: 'cpa' as const, amount: '12.50', currency: 'USD' } },
    { event: 'sale', pricing: { model: 'cps' as const, rate: '7.250' } },
  ],
  material: [{ format: 'image', url: 'https://cdn.example.test/icon.png', tag: 'icon' }],
  action: { name: 'Shop now', consumer_action: 'open_store' },
});
const internal = { remote_endpoint: SECRETS[3], credentials: { api_key: SECRETS[0]! }, settlement_contract: SECRETS[1], recommendation_context: { hint: SECRETS[2]! } };

const event = (type: string, key: string, value: object): NewEvent => ({ key, type, value: { ...value } });
const offer = (offer_id: string, kind: 'local' | 'remote', extra: Record<string, unknown> = {}) =>
  event(EventType.OfferUpserted, offer_id, offerUpsertedEvent({ offer_id, partner_id: PARTNER, kind, status: 'active', internal, ...extra }, [], now));
const snapshot = (offer_id: string, snapshot_id: string, language: string | undefined, updated: string, active = true) =>
  event(EventType.RemoteSnapshotPublished, offer_id, snapshotPublishedEvent({ offer_id, snapshot_id, language, active, updated_at: updated, content: details(`${language}`) }, now));

async function caughtUp() {
  await waitFor(async () => (await Promise.all(running.map((p) => p.lag()))).flat().every((p) => p.lag === 0), { what: 'projections caught up' });
}

beforeAll(async () => {
  t = await createTestRuntime({ eventLog: 'kafka', env: { LINK_BASE: 'https://go.example.test/l' } });
  const log = t.runtime.eventLog;
  await log.append('partners', [event(EventType.PartnerConfigured, PARTNER, partnerConfiguredEvent({ partner_id: PARTNER, name: 'Acme', source_ip_allowlist: ['192.0.2.0/24'] }, now))]);
  const localOffer = offerUpsertedEvent({ offer_id: LOCAL, partner_id: PARTNER, kind: 'local', status: 'active', details: details(), internal }, [], now);
  localOffer.targeting = [{ geo: { include: ['2840'], exclude: ['21137'] } }, { geo: { include: ['1000002'], exclude: [] } }];
  await log.append('offers', [
    event(EventType.OfferUpserted, LOCAL, localOffer),
    offer(REMOTE, 'remote', { status: 'expired', upstream_offer_id: 'acme-77' }),
    event(EventType.TrackedLinkRegistered, LOCAL, linkRegisteredEvent({ offer_id: LOCAL, shape: 'short_code', code: 'Ab3dE6gH', application_id: INSTANCE }, now)),
    event(EventType.TrackedLinkRegistered, REMOTE, linkRegisteredEvent({ offer_id: REMOTE, shape: 'instance_uuid', code: INSTANCE }, now)),
    event(EventType.TrackedLinkRegistered, LOCAL, linkRegisteredEvent({ offer_id: LOCAL, shape: 'static_path', code: 'st_spring-2026' }, now)),
    snapshot(REMOTE, '00000000-0000-7000-8000-00000000000a', 'de', '2026-02-03T00:00:00Z'),
    snapshot(REMOTE, '00000000-0000-7000-8000-00000000000b', 'en-US', '2026-02-01T00:00:00Z'),
    snapshot(REMOTE, '00000000-0000-7000-8000-00000000000c', 'fr', '2026-02-02T00:00:00Z'),
  ]);
  for (const projection of partnerOfferProjections) running.push(await startProjection(projection, { db: t.runtime.db, eventLog: log }));
  await caughtUp();
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await t?.close();
});

describe('offers read models on Kafka', () => {
  it('stores a local offer as its public document, money exact', async () => {
    expect(await findOffer(t.runtime.db, LOCAL)).toEqual({
      offer_id: LOCAL, partner_id: PARTNER, kind: 'local', status: 'active', deleted: false, delisted: false, test_only: false,
      updated_at: now, details: details(),
    });
    const remote = await findOffer(t.runtime.db, REMOTE);
    expect(remote).toMatchObject({ kind: 'remote', status: 'expired', details: null });
    expect(await findOffer(t.runtime.db, '01939c5e-7b1a-7c3e-9f00-00000000dead')).toBeUndefined();
  });

  it('keeps targeting and internals in the internal tables only', async () => {
    expect(await offerTargeting(t.runtime.db, LOCAL)).toEqual([
      { rule_index: 0, include: ['2840'], exclude: ['21137'] },
      { rule_index: 1, include: ['1000002'], exclude: [] },
    ]);
    const { rows } = await t.runtime.db.query<{ credentials: object }>('SELECT credentials FROM offer_internals WHERE offer_id = $1', [LOCAL]);
    expect(rows[0]!.credentials).toEqual({ api_key: SECRETS[0] });
    for (const table of ['offers', 'offer_goals', 'offer_snapshots', 'tracked_links', 'partners', 'partner_source_networks', 'partner_goal_mappings']) {
      const { rows: text } = await t.runtime.db.query<{ all: string | null }>(`SELECT string_agg(r::text, ' ') AS all FROM ${table} r`);
      for (const secret of SECRETS) expect(text[0]!.all ?? '', `${table} holds ${secret}`).not.toContain(secret);
      expect(text[0]!.all ?? '').not.toMatch(/21137|1000002/);
    }
  });

  it('looks up links of every shape by URL, ignoring query and fragment', async () => {
    const base = t.runtime.config.linkBase;
    const lookup = async (url: string) => {
      const parsed = parseTrackedLink(url, base);
      return parsed.ok ? ((await findLinkTarget(t.runtime.db, parsed.link)) ?? 'not_found') : parsed.reason;
    };
    expect(await lookup(`${linkUrl(base, { shape: 'short_code', code: 'Ab3dE6gH' })}?sub_id=1#x`)).toMatchObject({
      shape: 'short_code', code: 'Ab3dE6gH', offer_id: LOCAL, offer_instance_id: null, application_id: INSTANCE,
    });
    expect(await lookup(`${base}/${INSTANCE}`)).toMatchObject({ offer_id: REMOTE, offer_instance_id: INSTANCE });
    expect(await lookup(`${base}/static/st_spring-2026?a=b`)).toMatchObject({ offer_id: LOCAL, shape: 'static_path' });
    expect(await lookup(`${base}/Zz3dE6gH`)).toBe('not_found');
    expect(await lookup(`${base}/ab3de6gh`)).toBe('not_found');
    expect(await lookup('https://elsewhere.example.test/l/Ab3dE6gH')).toBe('other_origin');
    expect(await lookup(`${base}/shop/Ab3dE6gH`)).toBe('unsupported_path');
  });
});

describe('remote snapshot selection', () => {
  const selected = async (offerId: string) => (await selectRemoteSnapshot(t.runtime.db, offerId))?.snapshot_id;

  it('prefers an active English snapshot even when others are newer', async () => {
    const chosen = await selectRemoteSnapshot(t.runtime.db, REMOTE);
    expect(chosen).toMatchObject({ snapshot_id: '00000000-0000-7000-8000-00000000000b', language: 'en-US' });
    expect(readSnapshotContent(chosen!.content)).toEqual({ ok: true, details: details('en-US') });
  });

  it('otherwise takes the most recently updated active one, ties by snapshot id; inactive never', async () => {
    const offerId = '01939c5e-7b1a-7c3e-9f00-000000000003';
    await t.runtime.eventLog.append('offers', [
      offer(offerId, 'remote'),
      snapshot(offerId, '00000000-0000-7000-8000-0000000000f2', 'ja', '2026-02-05T00:00:00Z'),
      snapshot(offerId, '00000000-0000-7000-8000-0000000000f1', 'fr', '2026-02-05T00:00:00Z'),
      snapshot(offerId, '00000000-0000-7000-8000-0000000000f0', 'de', '2026-02-04T00:00:00Z'),
      snapshot(offerId, '00000000-0000-7000-8000-0000000000f3', 'en', '2026-02-06T00:00:00Z', false),
    ]);
    await caughtUp();
    expect(await selected(offerId)).toBe('00000000-0000-7000-8000-0000000000f1');
  });

  it('follows a snapshot being deactivated, and can select content of unknown language', async () => {
    await t.runtime.eventLog.append('offers', [
      snapshot(REMOTE, '00000000-0000-7000-8000-00000000000b', 'en-US', '2026-02-01T00:00:00Z', false),
      snapshot(REMOTE, '00000000-0000-7000-8000-00000000000d', undefined, '2026-02-04T00:00:00Z'),
    ]);
    await caughtUp();
    expect(await selectRemoteSnapshot(t.runtime.db, REMOTE)).toMatchObject({ snapshot_id: '00000000-0000-7000-8000-00000000000d', language: null });
    expect(await selected('01939c5e-7b1a-7c3e-9f00-00000000dead')).toBeUndefined();
  });

  it('has nothing to select when every snapshot is inactive', async () => {
    const offerId = '01939c5e-7b1a-7c3e-9f00-000000000004';
    await t.runtime.eventLog.append('offers', [offer(offerId, 'remote'), snapshot(offerId, '00000000-0000-7000-8000-0000000000e0', 'en', '2026-02-01T00:00:00Z', false)]);
    await caughtUp();
    expect(await selected(offerId)).toBeUndefined();
  });
});

describe('replay', () => {
  it('rebuilds every offers table with the same rows', async () => {
    const tables = ['offers', 'offer_goals', 'offer_snapshots', 'tracked_links', 'offer_targeting', 'offer_internals', 'partners', 'partner_source_networks', 'partner_goal_mappings'];
    const digest = async () =>
      Promise.all(tables.map(async (table) => (await t.runtime.db.query<{ d: string }>(`SELECT md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), '')) AS d FROM ${table} r`)).rows[0]!.d));
    const before = await digest();
    await Promise.all(running.map((p) => p.stop()));
    running = [];
    await Promise.all(partnerOfferProjections.map((projection) => replayProjection(t.runtime.db, t.runtime.eventLog, projection)));
    expect(await digest()).toEqual(before);
  });
});
