import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CARD_TEXTS, CardTable, type CardText } from '../../services/api/routes/offers/card-table.js';
import { viewOf } from '../../services/api/routes/offers/copy-bytes.js';
import { RequestedIds } from '../../services/api/routes/offers/requested-ids.js';
import { formatServedAt, opensLink, type ServedCard } from '../../services/api/routes/offers/instances-cards.js';

const uuid = fc.uuid().map((id) => id.toLowerCase());
// Links and ids with quotes, backslashes, control characters and characters of several UTF-8 lengths.
const text = fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\n', '\u2028', 'é', '😀'), fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })), maxLength: 30 });

const servedCard: fc.Arbitrary<ServedCard> = fc.record({
  offer_instance_id: uuid,
  application_id: fc.constantFrom('app-1', 'app-2', 'app-3'),
  placement_id: fc.option(fc.constantFrom('placement-1', 'placement-2'), { nil: null }),
  offer_id: fc.constantFrom('offer-1', 'offer-2'),
  served_at: fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }),
  environment: fc.constantFrom('live' as const, 'test' as const, 'sandbox' as const),
  link_url: fc.option(text.map((path) => `https://l.example/${path}`), { nil: null }),
  destination_url: fc.option(fc.constantFrom('https://shop.example/p', 'myapp://offer/1'), { nil: null }),
});

/** What the table should give back for a card: its four texts as JSON writes them, and its facts. */
function expected(card: ServedCard) {
  return {
    texts: [card.offer_instance_id, formatServedAt(card.served_at), JSON.stringify(card.placement_id), card.link_url === null ? '' : JSON.stringify(card.link_url).slice(1, -1)],
    facts: [card.application_id, card.offer_id, card.placement_id, card.environment === 'live', opensLink(card)],
  };
}

function read(table: CardTable, slot: number) {
  return {
    texts: CARD_TEXTS.map((_name, index) => {
      const target = Buffer.alloc(table.textBytes(slot, index as CardText) + 3, '#');
      const end = table.copyText(slot, index as CardText, viewOf(target), 3);
      expect(end).toBe(target.length);
      return target.subarray(3).toString('utf8');
    }),
    facts: [table.applicationId(slot), table.offerId(slot), table.placementId(slot), table.isLive(slot), table.opensLink(slot)],
  };
}

describe('the card table', () => {
  it('gives back every card it holds, found by its id, texts and facts unchanged; copied to another table too', () => {
    fc.assert(
      fc.property(fc.uniqueArray(servedCard, { selector: (card) => card.offer_instance_id, minLength: 1, maxLength: 40 }), fc.array(uuid, { maxLength: 5 }), (cards, others) => {
        const table = new CardTable(cards.length);
        for (const card of cards) expect(table.add(card)).toBeGreaterThanOrEqual(0);
        expect(table.isFull).toBe(true);
        const copy = new CardTable(cards.length);
        for (const card of cards) {
          const slot = table.find(card.offer_instance_id);
          expect(read(table, slot)).toEqual(expected(card));
          expect(read(copy, copy.addFrom(table, slot))).toEqual(expected(card));
        }
        for (const id of others) if (!cards.some((card) => card.offer_instance_id === id)) expect(table.find(id)).toBe(-1);
        // findAll, in any order and with repeats, answers what find answers one id at a time.
        const asked = [...others, ...cards.map((card) => card.offer_instance_id).reverse(), cards[0]!.offer_instance_id];
        const places = new Int32Array(asked.length);
        table.findAll(RequestedIds.fromTexts(asked).words, asked.length, places);
        expect([...places]).toEqual(asked.map((id) => table.find(id)));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a card past its capacity or one it holds already, and forgets all on clear', () => {
    const card = (id: string): ServedCard => ({
      offer_instance_id: id, application_id: 'app', placement_id: null, offer_id: 'offer', served_at: new Date('2026-11-28T00:00:00Z'),
      environment: 'live', link_url: null, destination_url: null,
    });
    const [first, second] = ['0192f3a0-0000-7000-8000-000000000001', '0192f3a0-0000-7000-8000-000000000002'];
    const table = new CardTable(1);
    expect(table.add(card(first))).toBeGreaterThanOrEqual(0);
    expect(table.add(card(first))).toBe(-1);
    expect(table.add(card(second))).toBe(-1);
    expect(table.find(second)).toBe(-1);
    table.clear();
    expect([table.size, table.find(first)]).toEqual([0, -1]);
    expect(table.add(card(second))).toBeGreaterThanOrEqual(0);
    expect(new CardTable(0).add(card(first))).toBe(-1);
  });

  it('grows as cards come, every card still found after each growth', () => {
    const cards = Array.from({ length: 5_000 }, (_, n): ServedCard => ({
      offer_instance_id: `0192f3a0-0000-7000-8000-${n.toString(16).padStart(12, '0')}`, application_id: `app-${n % 7}`, placement_id: null,
      offer_id: `offer-${n % 13}`, served_at: new Date(Date.UTC(2026, 10, 28, 0, 0, n % 60)), environment: 'live', link_url: `https://l.example/${n}`, destination_url: null,
    }));
    const table = new CardTable(10_000);
    for (const card of cards) table.add(card);
    expect(table.size).toBe(5_000);
    for (const card of cards) expect(read(table, table.find(card.offer_instance_id))).toEqual(expected(card));
  });

  it('grows its byte arena for cards with long links', () => {
    const table = new CardTable(2);
    const long = `https://l.example/${'x'.repeat(5_000)}`;
    const cards = ['0192f3a0-0000-7000-8000-000000000003', '0192f3a0-0000-7000-8000-000000000004'].map((id) => ({
      offer_instance_id: id, application_id: 'app', placement_id: 'placement', offer_id: 'offer', served_at: new Date('2026-11-28T00:00:00Z'),
      environment: 'live' as const, link_url: long, destination_url: 'https://shop.example/',
    }));
    for (const card of cards) table.add(card);
    for (const card of cards) expect(read(table, table.find(card.offer_instance_id))).toEqual(expected(card));
  });
});
