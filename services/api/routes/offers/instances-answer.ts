import { randomUUID } from 'node:crypto';
import { success } from '../../../../platform/http/envelope.js';
import type { StoredOffer } from '../../../../projections/offers/queries.js';
import { ASCII, instanceItem, type KeptCard, type ServedCard } from './instances-cards.js';
import type { InstanceItem } from './instances-schema.js';

/**
 * The 200 answer of `POST /v1/offers/instances`, assembled from pieces cut out of what the route's
 * own serializer writes, so an answer of 100 cards costs one join instead of serializing 100
 * offer objects. Every piece comes from the real serializer and the real item rules
 * (instances-cards.ts): a card is rendered once per offer state with placeholder values, and
 * each card then fills in its own id, time, placement and link. The bytes are the same as
 * serializing the items (tested).
 */
export interface InstancesAnswer {
  /** A new answer; its items are written in request order. */
  start(): AnswerWriter;
}

export interface AnswerWriter {
  /** `id` is a canonical UUID, as the request's ids are once parsed. */
  notFound(id: string): void;
  /** The caller's own live card of `offer`; `withAction` as keptCardHasAction decides for this card. */
  found(card: KeptCard, offer: StoredOffer, withAction: boolean): void;
  /** The whole answer as UTF-8 bytes, written into a buffer of `allocate` (a fresh one by default). */
  finish(allocate?: (bytes: number) => Buffer): Buffer;
}

/** Serializes a whole 200 answer, as the route's reply does. */
export type SerializeAnswer = (payload: unknown) => string;

const SLOTS = ['id', 'servedAt', 'placement', 'url'] as const;
type Slot = (typeof SLOTS)[number];
const [ID, SERVED_AT, PLACEMENT] = [0, 1, 2] as const;

/** Literal text and a card's values in turn: parts[0] value(slots[0]) parts[1] … parts[n]. */
interface Template {
  parts: string[];
  /** Indexes into SLOTS. */
  slots: number[];
  /** Every part is ASCII. */
  ascii: boolean;
}

function valueOf(card: KeptCard, slot: number): string {
  switch (slot) {
    case SERVED_AT:
      return card.servedAtText;
    case PLACEMENT:
      return card.placementText;
    default:
      return card.linkText;
  }
}

export function instancesAnswer(serialize: SerializeAnswer): InstancesAnswer {
  const empty = serialize(success({ instances: [] }));
  const cut = empty.indexOf('[]');
  if (cut < 0) throw new Error('the instances answer has no list to fill');
  const [head, tail] = [empty.slice(0, cut + 1), empty.slice(cut + 1)];
  const headAndTailAscii = ASCII.test(empty);

  /** One item as the serializer writes it inside the list. */
  const serializeItem = (item: InstanceItem) => {
    const whole = serialize(success({ instances: [item] }));
    if (!whole.startsWith(head) || !whole.endsWith(tail)) throw new Error('the instances answer changed shape around its items');
    return whole.slice(head.length, whole.length - tail.length);
  };

  // Placeholders no stored text can contain by chance (fresh random UUIDs per process).
  const marks: Record<Slot, string> = {
    id: randomUUID(),
    servedAt: `served-${randomUUID()}`,
    placement: JSON.stringify(`placement-${randomUUID()}`),
    url: `https://${randomUUID()}.invalid/`,
  };
  const template = (text: string): Template => {
    const parts: string[] = [];
    const slots: number[] = [];
    let from = 0;
    for (;;) {
      let next: { at: number; slot: number } | undefined;
      SLOTS.forEach((slot, index) => {
        const at = text.indexOf(marks[slot], from);
        if (at >= 0 && (!next || at < next.at)) next = { at, slot: index };
      });
      if (!next) break;
      parts.push(text.slice(from, next.at));
      slots.push(next.slot);
      from = next.at + marks[SLOTS[next.slot]!].length;
    }
    parts.push(text.slice(from));
    return { parts, slots, ascii: ASCII.test(text) };
  };

  const notFound = template(serializeItem({ offer_instance_id: marks.id, status: 'not_found' }));
  /** Per stored offer object: the offers cache hands out a new object whenever the offer may have changed. */
  const byOffer = new WeakMap<StoredOffer, { withAction: Template; withoutAction: Template }>();
  const templatesOf = (offer: StoredOffer) => {
    let found = byOffer.get(offer);
    if (!found) {
      const render = (linkUrl: string | null) => {
        const card: ServedCard = {
          offer_instance_id: marks.id,
          application_id: 'owner',
          placement_id: null,
          offer_id: offer.offer_id,
          served_at: new Date(0),
          environment: 'live',
          link_url: linkUrl,
          destination_url: 'https://destination.invalid/',
        };
        const item = instanceItem(marks.id, 'owner', card, offer, null);
        return template(serializeItem({ ...item, served_at: marks.servedAt, placement_id: JSON.parse(marks.placement) as string }));
      };
      found = { withAction: render(marks.url), withoutAction: render(null) };
      byOffer.set(offer, found);
    }
    return found;
  };

  return {
    start() {
      // Every piece of the answer in order, joined once at the end: one copy of the text.
      const pieces: string[] = [head];
      let separator = '';
      // An ASCII answer (the usual one) is its own UTF-8: copied out byte for byte, which costs far
      // less than the UTF-8 encoding of the same text on its way to the socket.
      let ascii = headAndTailAscii;
      const write = ({ parts, slots, ascii: partsAscii }: Template, id: string, card: KeptCard | undefined) => {
        ascii &&= partsAscii && (card?.textIsAscii ?? true);
        pieces.push(separator, parts[0]!);
        separator = ',';
        for (let index = 0; index < slots.length; index += 1) {
          const slot = slots[index]!;
          pieces.push(slot === ID ? id : card ? valueOf(card, slot) : '', parts[index + 1]!);
        }
      };
      return {
        notFound: (id) => write(notFound, id, undefined),
        found(card, offer, withAction) {
          const templates = templatesOf(offer);
          write(withAction ? templates.withAction : templates.withoutAction, card.offer_instance_id, card);
        },
        finish(allocate = Buffer.allocUnsafe) {
          pieces.push(tail);
          const text = pieces.join('');
          const encoding = ascii ? 'latin1' : 'utf8';
          const bytes = ascii ? text.length : Buffer.byteLength(text, 'utf8');
          const buffer = allocate(bytes);
          buffer.write(text, 0, bytes, encoding);
          return buffer.subarray(0, bytes);
        },
      };
    },
  };
}
