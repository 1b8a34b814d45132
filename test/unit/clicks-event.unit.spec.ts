import { describe, expect, it } from 'vitest';
import { linkClickedEvent, SUB_ID_MAX_LENGTH, subIdsFromQuery } from '../../commands/clicks/click.js';
import type { ClickTarget } from '../../projections/offers/links/link-target.js';

const CLICK = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

describe('subIdsFromQuery', () => {
  it('takes sub_id1…sub_id5, ignores other parameters and empty values', () => {
    expect(subIdsFromQuery({ sub_id1: 'a', sub_id5: 'é e', sub_id2: '', sub_id6: 'x', utm_source: 'y', svc_click_id: 'z' })).toEqual({ sub_id1: 'a', sub_id5: 'é e' });
  });

  it('counts empty values of a repeated sub id as absent', () => {
    expect(subIdsFromQuery({ sub_id1: ['', ''], sub_id2: ['', 'b'], sub_id3: ['c', ''] })).toEqual({ sub_id2: 'b', sub_id3: 'c' });
    expect(() => subIdsFromQuery({ sub_id4: ['a', '', 'b'] })).toThrow(expect.objectContaining({ field: 'sub_id4' }));
  });

  it('refuses a repeated or overlong sub id, naming it', () => {
    expect(() => subIdsFromQuery({ sub_id3: ['a', 'b'] })).toThrow(expect.objectContaining({ name: 'CommandInputError', field: 'sub_id3' }));
    expect(() => subIdsFromQuery({ sub_id4: 'x'.repeat(SUB_ID_MAX_LENGTH + 1) })).toThrow(
      expect.objectContaining({ field: 'sub_id4', message: `sub_id4: is longer than ${SUB_ID_MAX_LENGTH} characters` }),
    );
    expect(subIdsFromQuery({ sub_id4: 'x'.repeat(SUB_ID_MAX_LENGTH) }).sub_id4).toHaveLength(SUB_ID_MAX_LENGTH);
    expect(subIdsFromQuery({ sub_id4: '😀'.repeat(SUB_ID_MAX_LENGTH) }).sub_id4).toBe('😀'.repeat(SUB_ID_MAX_LENGTH));
  });

  it('refuses a NUL character, which no read model can store', () => {
    expect(() => subIdsFromQuery({ sub_id1: 'a\u0000b' })).toThrow(expect.objectContaining({ field: 'sub_id1', message: expect.stringContaining('NUL') }));
  });
});

describe('linkClickedEvent', () => {
  const card: ClickTarget & { destination: string } = {
    shape: 'short_code',
    code: 'Ab3dE6gH',
    offer_id: '0193a0b4-0000-7000-8000-0000000000aa',
    offer_instance_id: '0193a0b4-0000-7000-8000-000000000001',
    application_id: '0193a0b4-0000-7000-8000-0000000000bb',
    environment: 'test',
    destination: 'https://shop.example/p?c={svc_click_id}&i={offer_instance_id}&s={sub_id2}',
  };

  it('carries the link (svc_tracking_id = its code), the card, the sub ids and the redirect', () => {
    const at = new Date('2026-03-01T12:00:00.123Z');
    expect(linkClickedEvent(card, { svc_click_id: CLICK, clicked_at: at, sub_ids: { sub_id2: 'u 1' } })).toEqual({
      svc_click_id: CLICK,
      link_shape: 'short_code',
      link_code: 'Ab3dE6gH',
      offer_instance_id: card.offer_instance_id,
      application_id: card.application_id,
      offer_id: card.offer_id,
      environment: 'test',
      clicked_at: at.getTime(),
      sub_id1: null,
      sub_id2: 'u 1',
      sub_id3: null,
      sub_id4: null,
      sub_id5: null,
      redirect_url: `https://shop.example/p?c=${CLICK}&i=${card.offer_instance_id}&s=u%201`,
    });
  });

  it('a static link without instance or application fills {offer_instance_id} with nothing', () => {
    const wall = { ...card, shape: 'static_path' as const, code: 'st_wall', offer_instance_id: null, application_id: null, environment: 'live' as const };
    const event = linkClickedEvent(wall, { svc_click_id: CLICK, clicked_at: new Date(0), sub_ids: {} });
    expect(event).toMatchObject({ link_shape: 'static_path', link_code: 'st_wall', offer_instance_id: null, application_id: null });
    expect(event.redirect_url).toBe(`https://shop.example/p?c=${CLICK}&i=&s=`);
  });
});
