import { Type } from '@sinclair/typebox';
import type { PublicOffer } from '../../../../projections/offers/public-offer.js';
import { offerDetailsDocument } from '../../../../schemas/documents/offer.js';
import type { OfferServed } from '../../../../schemas/generated/events.js';
import { isOpenableDestination, linkAction, type CardAction } from './card-action.js';

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

const { entity, goals, material } = offerDetailsDocument.properties;

/** The 200 answer's schema: it also serializes the answer, so nothing undeclared (targeting, internals) can leave. */
export const queryResponse = Type.Object({
  code: Type.Literal('SUCCESS'),
  message: Type.Literal(''),
  data: Type.Object({
    cards: Type.Array(
      Type.Object({
        offer_id: Type.String(),
        offer_instance_id: Type.String(),
        version: Type.Optional(Type.String()),
        offer_info: Type.Object({
          status: Type.String(),
          title: Type.Optional(Type.String()),
          category: Type.Optional(Type.Object({ id: Type.String() })),
          description: Type.Optional(Type.String()),
        }),
        entity: Type.Optional(entity),
        goals: Type.Optional(goals),
        content_language: Type.Optional(Type.String()),
        material,
        action: Type.Optional(Type.Object({ type: Type.String(), payload: Type.Object({ url: Type.String() }) })),
      }),
    ),
  }),
  extra: Type.Object({}),
}, { description: 'the served cards (possibly none)' });
