import { describe, expect, it } from 'vitest';
import { servedEvents, type ServeRequest } from '../../commands/serves/serve.js';
import { isOpenableDestination as isWebUrl } from '../../services/api/routes/offers/card-action.js';
import { renderCard } from '../../services/api/routes/offers/query-cards.js';

const request: ServeRequest = {
  application_id: 'app', placement_id: null, environment: 'live', anonymous: true, location_id: '2840',
  offers: [{ offer_id: 'o1', destination_url: 'https://shop.example/a' }, { offer_id: 'o2', destination_url: null }, { offer_id: 'o3', destination_url: 'myapp://x' }],
};

describe('serve events', () => {
  let n = 0;
  const events = servedEvents(request, { now: new Date('2026-11-23T10:11:12.987Z'), linkBase: 'https://l.example/r/', codes: ['AAAAAAAA', '', 'BBBBBBBB'], mintId: () => `id-${++n}` });

  it('one event per offer in order, served_at truncated to the second, the caller copied into each', () => {
    expect(events.map((e) => [e.offer_instance_id, e.offer_id])).toEqual([['id-1', 'o1'], ['id-2', 'o2'], ['id-3', 'o3']]);
    for (const event of events) {
      expect(event).toMatchObject({ application_id: 'app', placement_id: null, environment: 'live', anonymous: true, location_id: '2840' });
      expect(event.served_at).toBe(Date.parse('2026-11-23T10:11:12Z'));
    }
  });

  it('a link on LINK_BASE for every offer with a destination, frozen with it; none without', () => {
    expect(events[0]).toMatchObject({ link_code: 'AAAAAAAA', link_url: 'https://l.example/r/AAAAAAAA', destination_url: 'https://shop.example/a' });
    expect(events[1]).toMatchObject({ link_code: null, link_url: null, destination_url: null });
    expect(events[2]).toMatchObject({ link_code: 'BBBBBBBB', destination_url: 'myapp://x' });
  });

  it('a card has an action only when its frozen destination is an http(s) URL', () => {
    const offer = { offer_id: 'o', offer_info: { status: 'active' as const }, action: { name: 'Shop now' } };
    expect(renderCard(offer, events[0]!)).toEqual({ offer_id: 'o', offer_info: { status: 'active' }, offer_instance_id: 'id-1', action: { type: 'url', payload: { url: 'https://l.example/r/AAAAAAAA' } } });
    expect(renderCard(offer, events[1]!)).not.toHaveProperty('action');
    expect(renderCard(offer, events[2]!)).not.toHaveProperty('action');
    // `http:/x` has no //host: a browser would open it relative to the link, so it is not absolute.
    expect([isWebUrl('HTTPS://x.example'), isWebUrl('http:/x'), isWebUrl('myapp://x'), isWebUrl('/relative'), isWebUrl(null)]).toEqual([true, false, false, false, false]);
  });
});
