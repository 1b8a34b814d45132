import { Type } from '@sinclair/typebox';
import type { PublicOffer } from '../../../../projections/offers/public-offer.js';
import type { OfferServed } from '../../../../schemas/generated/events.js';
import { isOpenableDestination, linkAction, type CardAction } from './card-action.js';
import { instanceOffer } from './instances-schema.js';

const closed = { additionalProperties: false } as const;

export interface Card extends Omit<PublicOffer, 'action'> {
  offer_instance_id: string;
  action?: CardAction;
}

/** One card: the offer object, the instance id, and the tracked short link as action when the frozen destination is a web URL. */
export function renderCard(offer: PublicOffer, served: OfferServed): Card {
  const { action: _publicAction, ...rest } = offer;
  const card: Card = { ...rest, offer_instance_id: served.offer_instance_id };
  if (served.link_url !== null && isOpenableDestination(served.destination_url)) card.action = linkAction(served.link_url);
  return card;
}

/**
 * The 200 answer's schema: it also serializes the answer, so nothing undeclared (targeting,
 * internals) can leave. A card is the instance route's offer object (reference: Offer object),
 * with the instance id and the card's tracked link as action.
 */
export const queryResponse = Type.Object(
  {
    code: Type.Literal('SUCCESS'),
    message: Type.Literal(''),
    data: Type.Object({ cards: Type.Array(instanceOffer) }, closed),
    extra: Type.Object({}, closed),
  },
  { ...closed, description: 'the served cards (possibly none)' },
);
