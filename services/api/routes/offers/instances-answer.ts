import { randomUUID } from 'node:crypto';
import { success } from '../../../../platform/http/envelope.js';
import type { StoredOffer } from '../../../../projections/offers/queries.js';
import { formatServedAt, instanceItem, type ServedCard } from './instances-cards.js';
import type { InstanceItem } from './instances-schema.js';

/**
 * The 200 answer of `POST /v1/offers/instances`, assembled from pieces cut out of what the route's
 * own serializer writes, so an answer of 100 cards costs string joins instead of serializing 100
 * offer objects. Every piece comes from the real serializer and the real item rules
 * (instances-cards.ts): a card is rendered once per offer state with placeholder values, and
 * each card then fills in its own id, time, placement and link. The bytes are the same as
 * serializing the items (tested).
 */
export interface InstancesAnswer {
  /** The whole answer for items already rendered. */
  envelope(items: string[]): string;
  notFound(id: string): string;
  /** The caller's own live card of `offer` (its values from cardValues); `withAction` as cardAction decides for this card. */
  found(values: CardValues, offer: StoredOffer, withAction: boolean): string;
}

type Slot = 'id' | 'servedAt' | 'placement' | 'url';
/** A card's own parts of its item, as JSON text (worked out once per card: they never change). */
export type CardValues = Readonly<Record<Slot, string>>;

export function cardValues(card: ServedCard): CardValues {
  return {
    id: card.offer_instance_id,
    servedAt: formatServedAt(card.served_at),
    placement: JSON.stringify(card.placement_id),
    url: card.link_url === null ? '' : JSON.stringify(card.link_url).slice(1, -1),
  };
}

/** Serializes a whole 200 answer, as the route's reply does. */
export type SerializeAnswer = (payload: unknown) => string;

/** Literal text and the card's values in turn: parts[0] slot[0] parts[1] … parts[n]. */
interface Template {
  parts: string[];
  slots: Slot[];
}

export function instancesAnswer(serialize: SerializeAnswer): InstancesAnswer {
  const empty = serialize(success({ instances: [] }));
  const cut = empty.indexOf('[]');
  if (cut < 0) throw new Error('the instances answer has no list to fill');
  const [head, tail] = [empty.slice(0, cut + 1), empty.slice(cut + 1)];

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
    const slots: Slot[] = [];
    let from = 0;
    for (;;) {
      let next: { at: number; slot: Slot } | undefined;
      for (const slot of Object.keys(marks) as Slot[]) {
        const at = text.indexOf(marks[slot], from);
        if (at >= 0 && (!next || at < next.at)) next = { at, slot };
      }
      if (!next) break;
      parts.push(text.slice(from, next.at));
      slots.push(next.slot);
      from = next.at + marks[next.slot].length;
    }
    parts.push(text.slice(from));
    return { parts, slots };
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

  const fill = ({ parts, slots }: Template, values: CardValues) => {
    let text = parts[0]!;
    for (let index = 0; index < slots.length; index += 1) text += values[slots[index]!] + parts[index + 1]!;
    return text;
  };
  const noValue = { servedAt: '', placement: '', url: '' };

  return {
    envelope: (items) => `${head}${items.join(',')}${tail}`,
    notFound: (id) => fill(notFound, { id, ...noValue }),
    found(values, offer, withAction) {
      const templates = templatesOf(offer);
      return fill(withAction ? templates.withAction : templates.withoutAction, values);
    },
  };
}
