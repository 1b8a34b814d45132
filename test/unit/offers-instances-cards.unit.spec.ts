import { describe, expect, it } from 'vitest';
import type { Placement } from '../../projections/accounts/queries.js';
import type { StoredOffer } from '../../projections/offers/queries.js';
import { isOpenableDestination } from '../../services/api/routes/offers/card-action.js';
import { formatServedAt, instanceItem, type ServedCard } from '../../services/api/routes/offers/instances-cards.js';

const APP = 'app';
const details: NonNullable<StoredOffer['details']> = {
  offer_info: { title: 'T', category: { id: 'c' }, description: 'D' },
  entity: { id: 'e', name: 'E', type: 'merchant' },
  goals: [{ event: 'install', pricing: { model: 'cpa', amount: '1.00', currency: 'USD' } }],
  action: { name: 'Go', consumer_action: 'Open' },
};
const offer = (overrides: Partial<StoredOffer> = {}): StoredOffer => ({
  offer_id: 'o', partner_id: 'p', kind: 'local', status: 'active', deleted: false, delisted: false, test_only: false, updated_at: new Date(0), details, ...overrides,
});
const card = (overrides: Partial<ServedCard> = {}): ServedCard => ({
  offer_instance_id: 'i', application_id: APP, placement_id: 'pl', offer_id: 'o', served_at: new Date('2026-03-04T05:06:07.890Z'), environment: 'live',
  link_url: 'https://l.example/AbCd1234', destination_url: 'https://shop.example/', ...overrides,
});
const placement = (overrides: Partial<Placement> = {}): Placement => ({ placement_id: 'pl', application_id: APP, name: 'feed', status: 'active', ...overrides });
const item = (c = card(), o: StoredOffer | null = offer(), p: Placement | null = placement()) => instanceItem('i', APP, c, o, p);

describe('instance items', () => {
  it('found: served_at in seconds, placement, the offer projection with the echoed id and the link as action', () => {
    expect(item()).toEqual({
      offer_instance_id: 'i',
      status: 'found',
      served_at: '2026-03-04T05:06:07Z',
      placement_id: 'pl',
      offer: {
        offer_id: 'o', offer_instance_id: 'i', version: '3.0',
        offer_info: { status: 'active', title: 'T', category: { id: 'c' }, description: 'D' },
        entity: details.entity, goals: details.goals,
        action: { type: 'url', payload: { url: 'https://l.example/AbCd1234' } },
      },
    });
  });

  it.each([
    ['no card', undefined, offer()],
    ["another application's card", card({ application_id: 'other' }), offer()],
    ['a test serve', card({ environment: 'test' }), offer()],
    ['a sandbox serve', card({ environment: 'sandbox' }), offer()],
    ['an unresolvable offer', card(), null],
  ])('not_found with only the id and status for %s', (_what, c, o) => {
    expect(instanceItem('i', APP, c, o, placement())).toEqual({ offer_instance_id: 'i', status: 'not_found' });
  });

  it.each([
    ['a remote offer', offer({ kind: 'remote' }), 'expired'],
    ['an offer without details', offer({ details: null }), 'active'],
    // Withdrawn content: no longer servable, so not `active` (a lifecycle status other than active stays).
    ['a deleted offer', offer({ deleted: true }), 'expired'],
    ['a delisted offer', offer({ delisted: true }), 'expired'],
    ['a test-only offer', offer({ test_only: true }), 'expired'],
    ['a deleted paused offer', offer({ deleted: true, status: 'paused' }), 'paused'],
    ['a paused remote offer', offer({ kind: 'remote', status: 'paused' }), 'expired'],
  ])('%s: only offer_id, offer_instance_id and offer_info.status', (_what, o, status) => {
    expect(item(card(), o).offer).toEqual({ offer_id: 'o', offer_instance_id: 'i', offer_info: { status } });
  });

  it.each([
    ['a paused offer', card(), offer({ status: 'paused' }), placement()],
    ['an inactive placement', card(), offer(), placement({ status: 'inactive' })],
    ["another application's placement", card(), offer(), placement({ application_id: 'other' })],
    ['an unknown placement', card(), offer(), null],
    ['no link', card({ link_url: null }), offer(), placement()],
    ['a deep link destination', card({ destination_url: 'myapp://x' }), offer(), placement()],
    ['no destination', card({ destination_url: null }), offer(), placement()],
  ])('no action with %s', (_what, c, o, p) => {
    expect(item(c, o, p).offer).not.toHaveProperty('action');
    expect(item(c, o, p).offer!.offer_info).toHaveProperty('title');
  });

  it('keeps the action for a card without placement', () => {
    expect(item(card({ placement_id: null }), offer(), null)).toMatchObject({ placement_id: null, offer: { action: { type: 'url' } } });
  });
});

describe('helpers', () => {
  it('formats served_at at second precision in UTC', () => {
    expect(formatServedAt(new Date('2026-12-31T23:59:59.999Z'))).toBe('2026-12-31T23:59:59Z');
  });

  it.each([
    ['https://a.example/x?y#z', true],
    ['HTTP://A.EXAMPLE', true],
    ['https://app.example/universal/1', true],
    ['myapp://item', false],
    ['ftp://a.example/', false],
    ['javascript:alert(1)', false],
    ['//a.example/x', false],
    ['https:a.example/x', false],
    ['https:/a.example/x', false],
    ['http:\\\\a.example\\x', false],
    ['not a url', false],
    ['', false],
  ])('%s openable: %s', (url, expected) => {
    expect(isOpenableDestination(url)).toBe(expected);
  });
});
