import fc from 'fast-check';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { success } from '../../platform/http/envelope.js';
import type { Placement } from '../../projections/accounts/queries.js';
import type { StoredOffer } from '../../projections/offers/queries.js';
import { instancesAnswer, type InstancesAnswer } from '../../services/api/routes/offers/instances-answer.js';
import { CardTable } from '../../services/api/routes/offers/card-table.js';
import { hasAction, instanceItem, type ServedCard } from '../../services/api/routes/offers/instances-cards.js';
import { instancesResponses } from '../../services/api/routes/offers/instances-schema.js';

// The instance route's answer assembled from cut pieces must be the bytes its serializer writes
// for the same items, whatever the offer, card and placement hold.
const app = Fastify();
let serialize: (payload: unknown) => string;
let answer: InstancesAnswer;

beforeAll(async () => {
  app.post('/instances', { schema: { response: instancesResponses } }, async (_request, reply) => {
    const compiled = reply.getSerializationFunction('200')!;
    serialize = (payload) => compiled(payload as Record<string, unknown>);
    return success({ instances: [] });
  });
  await app.inject({ method: 'POST', url: '/instances' });
  answer = instancesAnswer(serialize);
});
afterAll(() => app.close());

const APP = '0192f3a0-0000-7000-8000-00000000a001';

/** A card as the route keeps it: its table and slot. */
function kept(card: ServedCard): [CardTable, number] {
  const table = new CardTable(1);
  return [table, table.add(card)];
}
const uuid = fc.uuid().map((id) => id.toLowerCase());
// Text with quotes, backslashes, control characters, non-ASCII and the placeholders' look-alikes.
const text = fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\n', '\u2028', 'é', '😀', '-', 'https://', '.invalid/'), fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })), maxLength: 20 });
const decimal = fc.tuple(fc.nat(999), fc.nat(99)).map(([units, cents]) => `${units}.${String(cents).padStart(2, '0')}`);

const details = fc.record({
  offer_info: fc.record({ title: text, category: fc.record({ id: text }), description: text }),
  entity: fc.record({ id: text, name: text, type: text }),
  goals: fc.array(
    fc.oneof(
      fc.record({ event: text, pricing: fc.record({ model: fc.constant('cpa' as const), amount: decimal, currency: fc.constantFrom('USD', 'EUR') }) }),
      fc.record({ event: text, pricing: fc.record({ model: fc.constant('cps' as const), rate: decimal }) }),
    ),
    { maxLength: 3 },
  ),
  material: fc.option(fc.array(fc.record({ format: text, url: text, tag: text }), { maxLength: 2 }), { nil: undefined }),
  action: fc.option(fc.record({ name: text }), { nil: undefined }),
}).map(({ material, action, ...rest }) => ({ ...rest, ...(material ? { material } : {}), ...(action ? { action } : {}) }));

const storedOffer: fc.Arbitrary<StoredOffer> = fc.record({
  offer_id: uuid,
  partner_id: uuid,
  kind: fc.constantFrom('local' as const, 'remote' as const),
  status: fc.constantFrom('active' as const, 'paused' as const, 'pending' as const, 'rejected' as const, 'expired' as const),
  deleted: fc.boolean(),
  delisted: fc.boolean(),
  test_only: fc.boolean(),
  updated_at: fc.constant(new Date(0)),
  details: fc.option(details, { nil: null }),
});

const servedCard = (offer: StoredOffer): fc.Arbitrary<ServedCard> =>
  fc.record({
    offer_instance_id: uuid,
    application_id: fc.constant(APP),
    placement_id: fc.option(uuid, { nil: null }),
    offer_id: fc.constant(offer.offer_id),
    served_at: fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }),
    environment: fc.constant('live' as const),
    link_url: fc.option(fc.constantFrom('http://127.0.0.1:8080/l/AbCd1234', 'https://l.example/Zz9xY8wV'), { nil: null }),
    destination_url: fc.option(fc.constantFrom('https://shop.example/p?a=1&b="2"', 'http://x.example/', 'myapp://offer/1'), { nil: null }),
  });

const placementOf = (card: ServedCard): fc.Arbitrary<Placement | null> =>
  card.placement_id === null
    ? fc.constant(null)
    : fc.option(
        fc.record({
          placement_id: fc.constant(card.placement_id),
          application_id: fc.constantFrom(APP, 'another-application'),
          name: text,
          status: fc.constantFrom('active' as const, 'inactive' as const),
        }),
        { nil: null },
      );

const world = storedOffer.chain((offer) =>
  fc.array(servedCard(offer).chain((card) => fc.tuple(fc.constant(card), placementOf(card))), { minLength: 1, maxLength: 5 }).map((cards) => ({ offer, cards })),
);

describe('the instance answer from cut pieces', () => {
  it('is byte for byte what the route serializer writes for the same items', () => {
    fc.assert(
      fc.property(world, fc.array(uuid, { maxLength: 3 }), ({ offer, cards }, unknown) => {
        const items = cards.map(([card, placement]) => instanceItem(card.offer_instance_id, APP, card, offer, placement));
        // The kept card's own rule 7 decides the action, so this also checks it against cardAction.
        const writer = answer.start();
        for (const [card, placement] of cards) {
          const [table, slot] = kept(card);
          writer.found(table, slot, offer, hasAction(table.opensLink(slot), table.placementId(slot), offer, placement, APP));
        }
        for (const id of unknown) writer.notFound(id);
        const expected = serialize(success({ instances: [...items, ...unknown.map((id) => ({ offer_instance_id: id, status: 'not_found' as const }))] }));
        // Bytes, not text: an ASCII answer is copied out byte for byte, any other is encoded as UTF-8.
        expect(writer.finish().equals(Buffer.from(expected, 'utf8'))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('is the empty list for no items, and parses back to the items', () => {
    expect(answer.start().finish().toString('utf8')).toBe(serialize(success({ instances: [] })));
    const id = '0192f3a0-0000-7000-8000-0000000000b1';
    const writer = answer.start();
    writer.notFound(id);
    expect(JSON.parse(writer.finish().toString('utf8'))).toEqual({ code: 'SUCCESS', message: '', data: { instances: [{ offer_instance_id: id, status: 'not_found' }] }, extra: {} });
  });

  it('writes into the buffer it is given (larger and holding old bytes) and answers exactly the answer\'s bytes', () => {
    const id = '0192f3a0-0000-7000-8000-0000000000b2';
    const given = Buffer.alloc(4096, 'x');
    const writer = answer.start(() => given);
    writer.notFound(id);
    const bytes = writer.finish();
    expect(bytes.buffer).toBe(given.buffer);
    expect(bytes.toString('utf8')).toBe(serialize(success({ instances: [{ offer_instance_id: id, status: 'not_found' }] })));
  });

  it('moves to a larger buffer of the same source when the next item might not fit, the answer whole', () => {
    const asked: number[] = [];
    const given: Buffer[] = [];
    const writer = answer.start((bytes) => {
      asked.push(bytes);
      given.push(Buffer.alloc(bytes, 'x'));
      return given.at(-1)!;
    });
    const ids = Array.from({ length: 2_000 }, (_, n) => `0192f3a0-0000-7000-8000-${n.toString(16).padStart(12, '0')}`);
    for (const id of ids) writer.notFound(id);
    const bytes = writer.finish();
    expect(bytes.toString('utf8')).toBe(serialize(success({ instances: ids.map((id) => ({ offer_instance_id: id, status: 'not_found' as const })) })));
    expect(asked.length).toBeGreaterThan(1);
    expect(asked).toEqual([...asked].sort((a, b) => a - b));
    expect(bytes.buffer).toBe(given.at(-1)!.buffer);
  });

  it('writes non-ASCII text of an offer or a card as UTF-8, and an ASCII answer as the same bytes', () => {
    const offer = (title: string): StoredOffer => ({
      offer_id: '0192f3a0-0000-7000-8000-0000000000d1', partner_id: 'p', kind: 'local', status: 'active', deleted: false, delisted: false, test_only: false,
      updated_at: new Date(0), details: { offer_info: { title, category: { id: 'c' }, description: 'd' }, entity: { id: 'e', name: 'E', type: 't' }, goals: [] },
    });
    const card = (link: string): ServedCard => ({
      offer_instance_id: '0192f3a0-0000-7000-8000-0000000000d2', application_id: APP, placement_id: null, offer_id: offer('').offer_id,
      served_at: new Date('2026-11-27T03:04:05Z'), environment: 'live', link_url: link, destination_url: 'https://shop.example/',
    });
    for (const [title, link] of [['Café 😀', 'https://l.example/a'], ['Plain', 'https://l.example/é'], ['Plain', 'https://l.example/a']] as const) {
      const writer = answer.start();
      writer.found(...kept(card(link)), offer(title), true);
      const expected = serialize(success({ instances: [instanceItem(card(link).offer_instance_id, APP, card(link), offer(title), null)] }));
      expect(writer.finish().equals(Buffer.from(expected, 'utf8'))).toBe(true);
    }
  });

  it('renders an offer once per stored state: a new state object gets its own pieces', () => {
    const offer: StoredOffer = {
      offer_id: '0192f3a0-0000-7000-8000-0000000000c1', partner_id: 'p', kind: 'local', status: 'active', deleted: false, delisted: false, test_only: false,
      updated_at: new Date(0), details: { offer_info: { title: 'Before', category: { id: 'c' }, description: 'd' }, entity: { id: 'e', name: 'E', type: 't' }, goals: [] },
    };
    const card: ServedCard = {
      offer_instance_id: '0192f3a0-0000-7000-8000-0000000000c2', application_id: APP, placement_id: null, offer_id: offer.offer_id,
      served_at: new Date('2026-11-27T03:04:05.678Z'), environment: 'live', link_url: 'https://l.example/AbCd1234', destination_url: 'https://shop.example/',
    };
    const render = (state: StoredOffer, withAction: boolean) => {
      const writer = answer.start();
      writer.found(...kept(card), state, withAction);
      return JSON.parse(writer.finish().toString('utf8')).data.instances[0];
    };
    expect(render(offer, true).offer.offer_info.title).toBe('Before');
    const paused: StoredOffer = { ...offer, status: 'paused', details: { ...offer.details!, offer_info: { ...offer.details!.offer_info, title: 'After' } } };
    const found = render(paused, false);
    expect(found).toMatchObject({ served_at: '2026-11-27T03:04:05Z', placement_id: null, offer: { offer_info: { status: 'paused', title: 'After' } } });
    expect(found.offer.action).toBeUndefined();
  });
});
