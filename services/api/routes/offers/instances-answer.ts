import { randomUUID } from 'node:crypto';
import { success } from '../../../../platform/http/envelope.js';
import type { StoredOffer } from '../../../../projections/offers/queries.js';
import { viewOf } from './copy-bytes.js';
import { CARD_TEXTS, type CardTable, type CardText } from './card-table.js';
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
  /** A new answer; its items are written in request order. */
  start(): AnswerWriter;
}

export interface AnswerWriter {
  /** `id` is a canonical UUID, as the request's ids are once parsed (ASCII). */
  notFound(id: string): void;
  /** The caller's own live card of `offer`, kept in `table` at `slot`; `withAction` as rule 7 decides for this card. */
  found(table: CardTable, slot: number, offer: StoredOffer, withAction: boolean): void;
  /** The whole answer as UTF-8 bytes, written into a buffer of `allocate` (a fresh one by default). */
  finish(allocate?: (bytes: number) => Buffer): Buffer;
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
  if (notFound.slots.some((slot) => slot !== ID)) throw new Error('a not_found item holds more than its id');
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
      found = { withAction: render(marks.link), withoutAction: render(null) };
      byOffer.set(offer, found);
    }
    return found;
  };

  return {
    start() {
      // The items are noted first and copied once the size of the whole is known: one buffer, no
      // intermediate text, nothing encoded (every part is UTF-8 already).
      const templates: Template[] = [];
      /** Per item: the card table, or the requested id of a not_found item. */
      const sources: (CardTable | string)[] = [];
      const slotsInTable: number[] = [];
      let bytes = head.length + tail.length;
      return {
        notFound(id) {
          templates.push(notFound);
          sources.push(id);
          slotsInTable.push(-1);
          bytes += notFound.partBytes + notFound.slots.length * id.length;
        },
        found(table, slot, offer, withAction) {
          const chosen = withAction ? templatesOf(offer).withAction : templatesOf(offer).withoutAction;
          templates.push(chosen);
          sources.push(table);
          slotsInTable.push(slot);
          bytes += chosen.partBytes;
          for (const text of chosen.slots) bytes += table.textBytes(slot, text);
        },
        finish(allocate = Buffer.allocUnsafe) {
          const total = bytes + Math.max(templates.length - 1, 0);
          const target = allocate(total);
          const view = viewOf(target);
          target.set(head, 0);
          let at = head.length;
          for (let item = 0; item < templates.length; item += 1) {
            if (item > 0) target[at++] = COMMA;
            const { parts, slots } = templates[item]!;
            const source = sources[item]!;
            target.set(parts[0]!, at);
            at += parts[0]!.length;
            for (let index = 0; index < slots.length; index += 1) {
              if (typeof source === 'string') at = copyAscii(source, target, at);
              else at = source.copyText(slotsInTable[item]!, slots[index]!, view, at);
              const part = parts[index + 1]!;
              target.set(part, at);
              at += part.length;
            }
          }
          target.set(tail, at);
          return target.subarray(0, total);
        },
      };
    },
  };
}

const COMMA = 0x2c;

/** An ASCII string's bytes into `target` at `offset` (a requested id, canonical); answers the offset past it. */
function copyAscii(text: string, target: Uint8Array, offset: number): number {
  for (let index = 0; index < text.length; index += 1) target[offset + index] = text.charCodeAt(index);
  return offset + text.length;
}
