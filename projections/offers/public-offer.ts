import type { OfferDetailsDocument } from '../../schemas/documents/offer.js';
import type { StoredOffer } from './queries.js';
import { conventionalLanguageTag, isKnownLanguage } from './language-tag.js';

/** Offer document version of every offer object the routes return (reference: Versioning). */
export const OFFER_DOCUMENT_VERSION = '3.0';

export type OfferStatus = StoredOffer['status'];

/**
 * The public offer object without route-specific parts (`offer_instance_id`, `action.type` and
 * `action.payload`): what the instance route, the offer info route and Query cards share.
 * Optional members are absent, never null.
 */
export interface PublicOffer {
  offer_id: string;
  version?: typeof OFFER_DOCUMENT_VERSION;
  offer_info: { status: OfferStatus; title?: string; category?: { id: string }; description?: string };
  entity?: OfferDetailsDocument['entity'];
  goals?: OfferDetailsDocument['goals'];
  content_language?: string;
  material?: NonNullable<OfferDetailsDocument['material']>;
  /** Public action fields of the details (`name`, `consumer_action`); routes add `type` and `payload`. */
  action?: NonNullable<OfferDetailsDocument['action']>;
}

/** An offer object with its details: every field the reference requires "when details are returned" is there. */
export type DetailedOffer = PublicOffer & Required<Pick<PublicOffer, 'version' | 'entity' | 'goals'>> & { offer_info: Required<PublicOffer['offer_info']> };

/**
 * The status every route reports for an offer, so a card's status always equals what the offer
 * info route says: real-time remote offers are `expired` (their quote lived only at serve time);
 * local offers report their stored lifecycle status, except that a deleted, delisted or test-only
 * one stored as active reports `expired` (it can no longer be served).
 */
export function publicStatus(offer: Pick<StoredOffer, 'kind' | 'status' | 'deleted' | 'delisted' | 'test_only'>): OfferStatus {
  if (offer.kind === 'remote') return 'expired';
  // `active` is the only servable status: an offer whose content is withdrawn is not, whatever its lifecycle says.
  return offer.status === 'active' && hasWithdrawnContent(offer) ? 'expired' : offer.status;
}

/** Whether the offer's content is withdrawn from the public whatever its status: deleted, delisted or test-only. */
export function hasWithdrawnContent(offer: Pick<StoredOffer, 'deleted' | 'delisted' | 'test_only'>): boolean {
  return offer.deleted || offer.delisted || offer.test_only;
}

/** Whether the offer's content is public at all: active, undeleted, non-delisted, non-test. */
export function isPubliclyVisible(offer: Pick<StoredOffer, 'status' | 'deleted' | 'delisted' | 'test_only'>): boolean {
  return offer.status === 'active' && !hasWithdrawnContent(offer);
}

/**
 * The offer object for `offer` with `content` (its stored details, or a remote snapshot's), or
 * with only `offer_id` and `offer_info.status` when there is no content to show.
 */
export function publicOffer(offer: Pick<StoredOffer, 'offer_id' | 'kind' | 'status' | 'deleted' | 'delisted' | 'test_only'>, content: { details: OfferDetailsDocument; language: string | null }): DetailedOffer;
export function publicOffer(offer: Pick<StoredOffer, 'offer_id' | 'kind' | 'status' | 'deleted' | 'delisted' | 'test_only'>, content?: { details: OfferDetailsDocument; language: string | null }): PublicOffer;
export function publicOffer(offer: Pick<StoredOffer, 'offer_id' | 'kind' | 'status' | 'deleted' | 'delisted' | 'test_only'>, content?: { details: OfferDetailsDocument; language: string | null }): PublicOffer {
  const status = publicStatus(offer);
  if (!content) return { offer_id: offer.offer_id, offer_info: { status } };
  const { details, language } = content;
  return {
    offer_id: offer.offer_id,
    version: OFFER_DOCUMENT_VERSION,
    offer_info: { status, title: details.offer_info.title, category: { id: details.offer_info.category.id }, description: details.offer_info.description },
    entity: details.entity,
    goals: details.goals,
    ...(language && isKnownLanguage(language) ? { content_language: conventionalLanguageTag(language) } : {}),
    ...(details.material && details.material.length > 0 ? { material: details.material } : {}),
    ...(details.action && Object.keys(details.action).length > 0 ? { action: details.action } : {}),
  };
}
