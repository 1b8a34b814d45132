import { describe, expect, it } from 'vitest';
import { linkRegisteredEvent, mintCode } from '../../commands/offers/link-register.js';
import { snapshotPublishedEvent } from '../../commands/offers/publish-snapshot.js';
import { checkOfferShape, detailsForEvent, offerUpsertInput, offerUpsertedEvent } from '../../commands/offers/upsert.js';
import { validateInput } from '../../commands/validate.js';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { readSnapshotContent } from '../../projections/offers/details.js';
import { evolveOffers } from '../../projections/offers/evolve.js';
import { evolveOfferInternals } from '../../projections/offers/internal/evolve.js';
import { shapeOfCode } from '../../projections/offers/links/parse-link.js';
import { pricingProblem, type OfferDetailsDocument } from '../../schemas/documents/offer.js';
import { EventType, type OfferUpserted } from '../../schemas/generated/events.js';

const OFFER = '01939c5e-7b1a-7c3e-9f00-000000000001';
const PARTNER = '01939c5e-7b1a-7c3e-9f00-0000000000aa';
const now = new Date('2026-01-02T03:04:05Z');

function details(overrides: Partial<OfferDetailsDocument> = {}): OfferDetailsDocument {
  return {
    offer_info: { title: 'Spring sale', category: { id: 'shopping' }, description: 'Up to 30 % off.' },
    entity: { id: 'ent-1', name: 'Acme Shop', type: 'merchant' },
    goals: [
      { event: 'install', pricing: { model: 'cpa', amount: '12.50', currency: 'USD' } },
      { event: 'sale', pricing: { model: 'cps', rate: '7.5' } },
    ],
    material: [{ format: 'image', url: 'https://cdn.example.test/icon.png', tag: 'icon' }],
    action: { name: 'Shop now', consumer_action: 'open_store' },
    ...overrides,
  };
}

let offset = 0;
const logged = (type: string, value: object): LoggedEvent => ({
  topic: 'offers', partition: 0, offset: String(offset++), key: OFFER, type, value: { ...value }, schemaId: 1, timestamp: new Date(0),
});

function upserted(overrides: Partial<OfferUpserted> = {}): OfferUpserted {
  return {
    ...offerUpsertedEvent({ offer_id: OFFER, partner_id: PARTNER, kind: 'local', status: 'active', details: details() }, [], now),
    internal: { remote_endpoint: null, credentials: { api_key: 'SECRET-KEY' }, settlement_contract: 'net-30', recommendation_context: { boost: '2' } },
    targeting: [{ geo: { include: ['2840', '2840'], exclude: ['21137'] } }, { geo: { include: ['not-a-number'], exclude: [] } }],
    ...overrides,
  };
}

describe('evolveOffers', () => {
  it('keeps the last state of each offer, with public fields only', () => {
    const first = upserted({ status: 'paused' });
    const last = upserted({ status: 'active', deleted: true });
    const { offers } = evolveOffers([logged(EventType.OfferUpserted, first), logged(EventType.OfferUpserted, last)]);
    const row = offers.get(OFFER)!;
    expect(row).toMatchObject({ status: 'active', deleted: true, has_details: true, title: 'Spring sale', last_event_id: last.event_id });
    expect(row.goals).toEqual([
      { event: 'install', model: 'cpa', amount: '12.50', currency: 'USD', rate: null },
      { event: 'sale', model: 'cps', amount: null, currency: null, rate: '7.5' },
    ]);
    // Nothing internal survives into the public row.
    expect(JSON.stringify(row)).not.toMatch(/SECRET-KEY|net-30|boost|2840|targeting|internal/);
  });

  it('stores an offer without details as such', () => {
    const { offers } = evolveOffers([logged(EventType.OfferUpserted, upserted({ kind: 'remote', details: null }))]);
    expect(offers.get(OFFER)).toMatchObject({ kind: 'remote', has_details: false, title: null, goals: [], material: [] });
  });

  it('keeps the last version of a snapshot and the first registration of a link code', () => {
    const content = details();
    const snapshot = snapshotPublishedEvent({ offer_id: OFFER, language: 'en', content }, now);
    const deactivated = { ...snapshot, event_id: 'later', active: false };
    const link = linkRegisteredEvent({ offer_id: OFFER, shape: 'short_code', code: 'Ab3dE6gH' }, now);
    const again = { ...link, event_id: 'again', offer_id: 'other' };
    const changes = evolveOffers([
      logged(EventType.RemoteSnapshotPublished, snapshot),
      logged(EventType.TrackedLinkRegistered, link),
      logged(EventType.RemoteSnapshotPublished, deactivated),
      logged(EventType.TrackedLinkRegistered, again),
    ]);
    expect(changes.snapshots.get(snapshot.snapshot_id)).toMatchObject({ active: false, last_event_id: 'later', language: 'en' });
    expect(JSON.parse(changes.snapshots.get(snapshot.snapshot_id)!.content)).toEqual(content);
    expect(changes.links.get('Ab3dE6gH')).toMatchObject({ offer_id: OFFER, event_id: link.event_id, shape: 'short_code' });
  });
});

describe('evolveOfferInternals', () => {
  it('turns rules into rows without repeats or non-numeric ids, and keeps internals apart', () => {
    const state = evolveOfferInternals([logged(EventType.OfferUpserted, upserted())]).get(OFFER)!;
    expect(state.targeting).toEqual([
      { offer_id: OFFER, rule_index: 0, mode: 'include', location_id: '2840' },
      { offer_id: OFFER, rule_index: 0, mode: 'exclude', location_id: '21137' },
    ]);
    expect(state.internals).toMatchObject({ credentials: { api_key: 'SECRET-KEY' }, settlement_contract: 'net-30', recommendation_context: { boost: '2' } });
  });
});

describe('offer details', () => {
  it('round-trips a document through the event shape', () => {
    expect(detailsForEvent(details())).toMatchObject({ title: 'Spring sale', category_id: 'shopping', action_name: 'Shop now', consumer_action: 'open_store' });
  });

  it.each([
    [[{ event: 'a', pricing: { model: 'cpa' as const, currency: 'USD' } }], 'goals[0].pricing.amount'],
    [[{ event: 'a', pricing: { model: 'cpa' as const, amount: '1' } }], 'goals[0].pricing.currency'],
    [[{ event: 'a', pricing: { model: 'cpa' as const, amount: '1', currency: 'USD', rate: '1' } }], 'goals[0].pricing.rate'],
    [[{ event: 'a', pricing: { model: 'cps' as const } }], 'goals[0].pricing.rate'],
    [[{ event: 'a', pricing: { model: 'cps' as const, rate: '100.5' } }], 'goals[0].pricing.rate'],
    [[{ event: 'a', pricing: { model: 'cps' as const, rate: '5', amount: '1' } }], 'goals[0].pricing.amount'],
    [[{ event: 'a', pricing: { model: 'cps' as const, rate: '5' } }, { event: 'a', pricing: { model: 'cps' as const, rate: '6' } }], 'goals[1].event'],
  ])('finds the pricing problem of %j', (goals, field) => {
    expect(pricingProblem(details({ goals }))?.field).toBe(field);
  });

  it('reads stored snapshot text, reporting malformed content instead of half-reading it', () => {
    expect(readSnapshotContent(JSON.stringify(details()))).toEqual({ ok: true, details: details() });
    expect(readSnapshotContent('{"offer_info":')).toEqual({ ok: false, problem: 'content is not JSON' });
    expect(readSnapshotContent(JSON.stringify({ ...details(), secret: 1 }))).toMatchObject({ ok: false });
    expect(readSnapshotContent(JSON.stringify(details({ goals: [{ event: 'a', pricing: { model: 'cpa', amount: '1' } }] })))).toEqual({
      ok: false,
      problem: 'content.goals[0].pricing.currency: is required for cpa pricing',
    });
  });
});

describe('command event builders', () => {
  it('refuses details on a remote offer and bad pricing, naming the field', () => {
    const input = { partner_id: PARTNER, kind: 'remote', status: 'active', details: details() };
    expect(() => checkOfferShape(input)).toThrow(expect.objectContaining({ field: 'details' }));
    const bad = { ...input, kind: 'local', details: details({ goals: [{ event: 'a', pricing: { model: 'cps' } }] }) };
    expect(() => checkOfferShape(bad)).toThrow(expect.objectContaining({ field: 'details.goals[0].pricing.rate' }));
  });

  it('refuses a cpa goal priced in a code that is not an ISO 4217 currency, in offers and snapshots; documents already logged are still read', () => {
    const goals = (code: string) => [{ event: 'a', pricing: { model: 'cps' as const, rate: '5' } }, { event: 'b', pricing: { model: 'cpa' as const, amount: '1', currency: code } }];
    const input = { partner_id: PARTNER, kind: 'local', status: 'active', details: details({ goals: goals('ABC') }) };
    expect(() => checkOfferShape(input)).toThrow(expect.objectContaining({ field: 'details.goals[1].pricing.currency' }));
    expect(() => checkOfferShape({ ...input, details: details({ goals: goals('EUR') }) })).not.toThrow();
    expect(() => snapshotPublishedEvent({ offer_id: OFFER, content: details({ goals: goals('XYZ') }) }, now)).toThrow(
      expect.objectContaining({ field: 'content.goals[1].pricing.currency' }),
    );
    expect(readSnapshotContent(JSON.stringify(details({ goals: goals('ABC') })))).toMatchObject({ ok: true });
  });

  it('refuses a cpa amount finer than its currency pays (the price shown is the one paid), in offers and snapshots; documents already logged are still read', () => {
    const priced = (amount: string, currency: string) => details({ goals: [{ event: 'a', pricing: { model: 'cpa' as const, amount, currency } }] });
    const input = (amount: string, currency: string) => ({ partner_id: PARTNER, kind: 'local', status: 'active', details: priced(amount, currency) });
    for (const [amount, currency] of [['35', 'JPY'], ['35.00', 'JPY'], ['12.5', 'USD'], ['12.50', 'USD'], ['12.500', 'USD'], ['1.235', 'KWD'], ['0.0001', 'CLF']]) {
      expect(() => checkOfferShape(input(amount!, currency!)), `${amount} ${currency}`).not.toThrow();
    }
    for (const [amount, currency, message] of [['34.93', 'JPY', 'has 2 decimal places; JPY is paid in units of 1 (at most 0 decimal places)'], ['0.125', 'USD', 'has 3 decimal places; USD is paid in units of 0.01 (at most 2 decimal places)'], ['1.2345', 'KWD', 'has 4 decimal places; KWD is paid in units of 0.001 (at most 3 decimal places)']]) {
      expect(() => checkOfferShape(input(amount!, currency!)), `${amount} ${currency}`).toThrow(expect.objectContaining({ field: 'details.goals[0].pricing.amount', message: expect.stringContaining(message!) }));
    }
    expect(() => snapshotPublishedEvent({ offer_id: OFFER, content: priced('1.5', 'JPY') }, now)).toThrow(expect.objectContaining({ field: 'content.goals[0].pricing.amount' }));
    expect(readSnapshotContent(JSON.stringify(priced('1.5', 'JPY')))).toMatchObject({ ok: true });
  });

  it('takes a destination with a scheme (web URLs need // and a host: `https:shop.example` would open relative to the link)', () => {
    const input = (destination_url: string) => ({ partner_id: PARTNER, kind: 'local', status: 'active', destination_url });
    for (const good of ['https://shop.example/p?x={svc_click_id}', 'HTTP://SHOP.EXAMPLE', 'myapp://offer/1', 'myapp:offer', 'intent://scan/#Intent;end']) {
      expect(() => validateInput(offerUpsertInput, input(good)), good).not.toThrow();
    }
    for (const bad of ['https:shop.example/p', 'https:/shop.example/p', 'http:///p', 'Https:shop.example', 'shop.example/p', 'https://shop.example/a b']) {
      expect(() => validateInput(offerUpsertInput, input(bad)), bad).toThrow(expect.objectContaining({ field: 'destination_url' }));
    }
    // Well-formed, but a click is never sent there: refused when the offer is written, not at every click.
    for (const unsafe of ['javascript:alert(1)', 'JavaScript:void(0)', 'data:text/html,x', 'file:///etc/passwd', 'vbscript:x', 'blob:https://a/b']) {
      expect(() => checkOfferShape(validateInput(offerUpsertInput, input(unsafe))), unsafe).toThrow(expect.objectContaining({ field: 'destination_url', message: expect.stringMatching(/never sent to/) }));
    }
  });

  it('mints codes of every shape that parse back as that shape', () => {
    for (const shape of ['short_code', 'instance_uuid', 'static_path'] as const) expect(shapeOfCode(mintCode(shape))).toBe(shape);
  });

  it('checks that a given code has the declared shape', () => {
    expect(() => linkRegisteredEvent({ offer_id: OFFER, shape: 'short_code', code: 'abc' }, now)).toThrow(expect.objectContaining({ field: 'code' }));
    expect(() => linkRegisteredEvent({ offer_id: OFFER, shape: 'instance_uuid', code: OFFER.toUpperCase() }, now)).toThrow(
      expect.objectContaining({ field: 'code', message: expect.stringContaining("does not have the shape of an instance_uuid link's code") }),
    );
    expect(() => linkRegisteredEvent({ offer_id: OFFER, shape: 'instance_uuid', code: OFFER, offer_instance_id: PARTNER }, now)).toThrow(
      expect.objectContaining({ field: 'offer_instance_id' }),
    );
    expect(linkRegisteredEvent({ offer_id: OFFER, shape: 'instance_uuid', code: OFFER }, now).offer_instance_id).toBe(OFFER);
  });

  it('defaults a snapshot to active, now, unknown language', () => {
    expect(snapshotPublishedEvent({ offer_id: OFFER, content: details() }, now)).toMatchObject({ active: true, language: null, updated_at: now.getTime() });
    expect(snapshotPublishedEvent({ offer_id: OFFER, content: details(), updated_at: '2025-12-31T23:00:00+01:00' }, now).updated_at).toBe(
      Date.parse('2025-12-31T22:00:00Z'),
    );
  });

  it('refuses a snapshot updated_at more than a day ahead of now (it would be the one shown for good); a day ahead passes', () => {
    const ahead = (ms: number) => new Date(now.getTime() + ms).toISOString();
    expect(() => snapshotPublishedEvent({ offer_id: OFFER, content: details(), updated_at: '9999-12-31T23:59:59Z' }, now)).toThrow(
      expect.objectContaining({ field: 'updated_at', message: expect.stringContaining('is more than a day ahead of now') }),
    );
    expect(() => snapshotPublishedEvent({ offer_id: OFFER, content: details(), updated_at: ahead(24 * 3_600_000 + 1_000) }, now)).toThrow(expect.objectContaining({ field: 'updated_at' }));
    expect(snapshotPublishedEvent({ offer_id: OFFER, content: details(), updated_at: ahead(24 * 3_600_000) }, now).updated_at).toBe(now.getTime() + 24 * 3_600_000);
  });

  it.each(['2026-02-30T00:00:00Z', '2026-11-01T24:00:00Z', '2026-11-01T10:60:00Z', '0000-01-01T00:00:00Z'])('refuses a snapshot updated_at the calendar does not have (%s), never rolling it over', (updatedAt) => {
    expect(() => snapshotPublishedEvent({ offer_id: OFFER, content: details(), updated_at: updatedAt }, now)).toThrow(expect.objectContaining({ field: 'updated_at' }));
  });
});
