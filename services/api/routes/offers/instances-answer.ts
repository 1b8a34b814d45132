import { randomUUID } from 'node:crypto';
import { success } from '../../../../platform/http/envelope.js';
import type { StoredOffer } from '../../../../projections/offers/queries.js';
import { viewOf } from './copy-bytes.js';
import { CARD_TEXTS, CARD_ID_TEXTS_MOST, type CardTable, type CardText } from './card-table.js';
import { instanceItem, type ServedCard } from './instances-cards.js';
import type { InstanceItem } from './instances-schema.js';

/**
 * The 200 answer of `POST /v1/offers/instances`, assembled from pieces cut out of what the route's
 * own serializer writes, so an answer of 100 cards costs copies of bytes instead of serializing
 * 100 offer objects. Every piece comes from the real serializer and the real item rules
 * (instances-cards.ts): a card is rendered once per offer state with placeholder values, kept as
 * UTF-8, and each card then fills in its own id, time, placement and link from the card table
 * (card-table.ts), already UTF-8 too. The bytes are the same as serializing the items (tested).
 */
export interface InstancesAnswer {
  /** A new answer, written into buffers of `allocate` (fresh ones by default); its items are written in request order. */
  start(allocate?: (bytes: number) => Buffer): AnswerWriter;
}

export interface AnswerWriter {
  /** `id` is a canonical UUID, as the request's ids are once parsed (ASCII). */
  notFound(id: string): void;
  /** The caller's own live card of `offer`, kept in `table` at `slot`; `withAction` as rule 7 decides for this card. */
  found(table: CardTable, slot: number, offer: StoredOffer, withAction: boolean): void;
  /** The whole answer as UTF-8 bytes (a part of the last buffer `start` was given). */
  finish(): Buffer;
}

/** Serializes a whole 200 answer, as the route's reply does. */
export type SerializeAnswer = (payload: unknown) => string;

/** A template's slots are the card's texts, by their index in CARD_TEXTS. */
type Slot = (typeof CARD_TEXTS)[number];
const ID = CARD_TEXTS.indexOf('id');

/** Literal bytes and a card's texts in turn: parts[0] text(slots[0]) parts[1] … parts[n]. */
interface Template {
  parts: Buffer[];
  /** The literal bytes in all. */
  partBytes: number;
  /** Indexes into CARD_TEXTS. */
  slots: CardText[];
}

export function instancesAnswer(serialize: SerializeAnswer): InstancesAnswer {
  const empty = serialize(success({ instances: [] }));
  const cut = empty.indexOf('[]');
  if (cut < 0) throw new Error('the instances answer has no list to fill');
  const [headText, tailText] = [empty.slice(0, cut + 1), empty.slice(cut + 1)];
  const [head, tail] = [Buffer.from(headText, 'utf8'), Buffer.from(tailText, 'utf8')];

  /** One item as the serializer writes it inside the list. */
  const serializeItem = (item: InstanceItem) => {
    const whole = serialize(success({ instances: [item] }));
    if (!whole.startsWith(headText) || !whole.endsWith(tailText)) throw new Error('the instances answer changed shape around its items');
    return whole.slice(headText.length, whole.length - tailText.length);
  };

  // Placeholders no stored text can contain by chance (fresh random UUIDs per process).
  const marks: Record<Slot, string> = {
    id: randomUUID(),
    servedAt: `served-${randomUUID()}`,
    placement: JSON.stringify(`placement-${randomUUID()}`),
    link: `https://${randomUUID()}.invalid/`,
  };
  const template = (text: string): Template => {
    const parts: Buffer[] = [];
    const slots: CardText[] = [];
    let from = 0;
    for (;;) {
      let next: { at: number; slot: number } | undefined;
      CARD_TEXTS.forEach((slot, index) => {
        const at = text.indexOf(marks[slot], from);
        if (at >= 0 && (!next || at < next.at)) next = { at, slot: index };
      });
      if (!next) break;
      parts.push(Buffer.from(text.slice(from, next.at), 'utf8'));
      slots.push(next.slot as CardText);
      from = next.at + marks[CARD_TEXTS[next.slot]!].length;
    }
    parts.push(Buffer.from(text.slice(from), 'utf8'));
    return { parts, slots, partBytes: parts.reduce((sum, part) => sum + part.length, 0) };
  };

  const notFound = template(serializeItem({ offer_instance_id: marks.id, status: 'not_found' }));
  if (notFound.slots.length !== 1 || notFound.slots[0] !== ID) throw new Error('a not_found item holds other than its id once');
  /** A found item's room is reserved by CardTable.mostTextBytes: each text of a card once, its id at most CARD_ID_TEXTS_MOST times. */
  const checkedFound = (found: Template) => {
    const uses = CARD_TEXTS.map((_text, index) => found.slots.filter((slot) => slot === index).length);
    if (uses.some((count, index) => count > (index === ID ? CARD_ID_TEXTS_MOST : 1))) throw new Error('a found item holds a card text more often than its room allows');
    return found;
  };
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
        return checkedFound(template(serializeItem({ ...item, served_at: marks.servedAt, placement_id: JSON.parse(marks.placement) as string })));
      };
      found = { withAction: render(marks.link), withoutAction: render(null) };
      byOffer.set(offer, found);
    }
    return found;
  };

  return {
    start(allocate = Buffer.allocUnsafe) {
      // Written as the items come, into one buffer grown (rarely: the route's hold 128 kB) when the
      // next item might not fit; every part is UTF-8 already, so nothing is encoded.
      let target = allocate(FIRST_BYTES);
      let view = viewOf(target);
      target.set(head, 0);
      let at = head.length;
      let items = 0;
      /** Room for an item of at most `bytes` (and its comma), the tail kept in reserve. */
      const makeRoom = (bytes: number) => {
        const needed = at + bytes + 1 + tail.length;
        if (needed <= target.length) return;
        const grown = allocate(Math.max(needed, target.length * 2));
        target.copy(grown, 0, 0, at);
        target = grown;
        view = viewOf(grown);
      };
      return {
        notFound(id) {
          makeRoom(notFound.partBytes + id.length);
          if (items++ > 0) target[at++] = COMMA;
          const { parts } = notFound;
          target.set(parts[0]!, at);
          at = copyAscii(id, target, at + parts[0]!.length);
          target.set(parts[1]!, at);
          at += parts[1]!.length;
        },
        found(table, slot, offer, withAction) {
          const { parts, slots, partBytes } = withAction ? templatesOf(offer).withAction : templatesOf(offer).withoutAction;
          makeRoom(partBytes + table.mostTextBytes(slot));
          if (items++ > 0) target[at++] = COMMA;
          target.set(parts[0]!, at);
          at += parts[0]!.length;
          for (let index = 0; index < slots.length; index += 1) {
            at = table.copyText(slot, slots[index]!, view, at);
            const part = parts[index + 1]!;
            target.set(part, at);
            at += part.length;
          }
        },
        finish() {
          target.set(tail, at);
          return target.subarray(0, at + tail.length);
        },
      };
    },
  };
}

const COMMA = 0x2c;
/** The first buffer an answer asks for (the route's are 128 kB: a hundred cards fit). */
const FIRST_BYTES = 16 * 1024;

/** An ASCII string's bytes into `target` at `offset` (a requested id, canonical); answers the offset past it. */
function copyAscii(text: string, target: Uint8Array, offset: number): number {
  for (let index = 0; index < text.length; index += 1) target[offset + index] = text.charCodeAt(index);
  return offset + text.length;
}
