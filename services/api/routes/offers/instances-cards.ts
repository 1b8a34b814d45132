import { isOpenableDestination, linkAction } from './card-action.js';
import type { Placement } from '../../../../projections/accounts/queries.js';
import { isPubliclyVisible, publicOffer, publicStatus } from '../../../../projections/offers/public-offer.js';
import type { StoredOffer } from '../../../../projections/offers/queries.js';
import type { ServedInstanceRow } from '../../../../projections/serves/evolve.js';
import type { InstanceItem, InstanceOffer } from './instances-schema.js';

/**
 * The rules of `POST /v1/offers/instances` for one requested id, as pure functions of the rows
 * read for it (reference: Instance item, Offer object, the route's rules 2 and 5–7).
 */

export type ServedCard = Pick<
  ServedInstanceRow,
  'offer_instance_id' | 'application_id' | 'placement_id' | 'offer_id' | 'served_at' | 'environment' | 'link_url' | 'destination_url'
>;

/** RFC 3339 UTC with second precision: `2026-11-23T05:55:40Z`. */
export function formatServedAt(servedAt: Date): string {
  return servedAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A card belongs to the application whose identity served it, and only live serves are ever found (rule 2). */
export function isCallersCard(card: Pick<ServedCard, 'application_id' | 'environment'>, applicationId: string): boolean {
  return isServedTo(card.application_id, card.environment === 'live', applicationId);
}

/** isCallersCard for a card kept as its application and whether it was a live serve (card-table.ts). */
export const isServedTo = (cardApplicationId: string, live: boolean, applicationId: string) => live && cardApplicationId === applicationId;

/** The card's own half of rule 7, fixed at serve time: it has a link and its frozen destination opens in a browser. */
export const opensLink = (card: Pick<ServedCard, 'link_url' | 'destination_url'>) => Boolean(card.link_url) && isOpenableDestination(card.destination_url);

/**
 * Rule 7: a card has its tracked short link as action only when all hold: the offer is active
 * (and public: a deleted, delisted or test-only offer is withdrawn); the card's placement is
 * still active and belongs to the calling application, or the card had none; the card has a
 * link; the frozen destination is an absolute http(s) URL (`cardOpensLink`).
 */
export function hasAction(cardOpensLink: boolean, placementId: string | null, offer: StoredOffer, placement: Placement | null, applicationId: string): boolean {
  if (!cardOpensLink || publicStatus(offer) !== 'active' || !isPubliclyVisible(offer)) return false;
  return placementId === null || (placement?.status === 'active' && placement.application_id === applicationId);
}

/** Rule 7 for a card as read: its action, or undefined. */
export function cardAction(card: ServedCard, offer: StoredOffer, placement: Placement | null, applicationId: string): InstanceOffer['action'] {
  return hasAction(opensLink(card), card.placement_id, offer, placement, applicationId) ? linkAction(card.link_url!) : undefined;
}

/**
 * Rules 5 and 6: the offer object of the offer's current state plus the echoed id. Details are
 * shown only for a local offer that has them and whose content is not withdrawn (deleted,
 * delisted or test-only: the offer info route hides those too); without them the object holds
 * only offer_id, offer_instance_id and offer_info.status, so remote offers report `expired` alone
 * and no action. The details' own action fields (name, consumer_action) belong to the offer info
 * route: here `action` is only the card's link (rule 7).
 */
function cardOffer(card: ServedCard, offer: StoredOffer, placement: Placement | null, applicationId: string): InstanceOffer {
  const withdrawn = offer.deleted || offer.delisted || offer.test_only;
  if (offer.kind !== 'local' || !offer.details || withdrawn) {
    const { offer_id, offer_info } = publicOffer(offer);
    return { offer_id, offer_instance_id: card.offer_instance_id, offer_info };
  }
  const { action: _detailsAction, ...projected } = publicOffer(offer, { details: offer.details, language: null });
  const action = cardAction(card, offer, placement, applicationId);
  return { ...projected, offer_instance_id: card.offer_instance_id, ...(action ? { action } : {}) };
}

/**
 * One item: `found` for the caller's live card of a known offer, `not_found` otherwise (unknown
 * id, another application's card, a test or sandbox serve, a record whose offer cannot be
 * resolved). `card`, `offer` and `placement` are what the read models hold for the id.
 */
export function instanceItem(
  id: string,
  applicationId: string,
  card: ServedCard | undefined,
  offer: StoredOffer | null | undefined,
  placement: Placement | null | undefined,
): InstanceItem {
  if (!card || !isCallersCard(card, applicationId) || !offer) return { offer_instance_id: id, status: 'not_found' };
  return {
    offer_instance_id: id,
    status: 'found',
    served_at: formatServedAt(card.served_at),
    placement_id: card.placement_id,
    offer: cardOffer(card, offer, placement ?? null, applicationId),
  };
}
