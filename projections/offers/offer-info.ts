import type { Sql } from '../../platform/db/db.js';
import { readSnapshotContent } from './details.js';
import { hasWithdrawnContent, isPubliclyVisible, publicOffer, type DetailedOffer } from './public-offer.js';
import { findOffer, selectRemoteSnapshot, type StoredOffer, type StoredSnapshot } from './queries.js';

/**
 * What `GET /v1/offers/info` can say about one canonical offer id (reference: the route's rules
 * 5, 6 and 8): its public offer object, that there is nothing public to show (404), or that the
 * stored content cannot be read (503, never a partial answer).
 */
export type OfferInfoContent =
  | { status: 'public'; offer: DetailedOffer }
  | { status: 'hidden'; reason: string }
  | { status: 'unreadable'; problem: string };

/**
 * The rules as a pure function of what is stored. Local offers: only active, undeleted,
 * non-delisted, non-test ones with stored details, shown as stored. Remote offers: their
 * snapshots are their content lifecycle, so an undeleted, non-delisted, non-test remote offer
 * with an active snapshot is shown whatever its stored serving status (a paused endpoint or an
 * expired quote does not hide details); its status is `expired`, as publicStatus says for every
 * route. `snapshot` is the one selectRemoteSnapshot chose (undefined: none active).
 */
export function projectOfferInfo(offer: StoredOffer | undefined, snapshot: StoredSnapshot | undefined): OfferInfoContent {
  if (!offer) return { status: 'hidden', reason: 'no offer has this id' };
  if (offer.kind === 'local') {
    if (!isPubliclyVisible(offer)) return { status: 'hidden', reason: 'the offer is not public' };
    if (!offer.details) return { status: 'hidden', reason: 'the offer has no stored details' };
    return { status: 'public', offer: publicOffer(offer, { details: offer.details, language: null }) };
  }
  if (hasWithdrawnContent(offer)) return { status: 'hidden', reason: 'the offer is not public' };
  if (!snapshot) return { status: 'hidden', reason: 'the offer has no active snapshot' };
  const content = readSnapshotContent(snapshot.content);
  if (!content.ok) return { status: 'unreadable', problem: `snapshot ${snapshot.snapshot_id}: ${content.problem}` };
  return { status: 'public', offer: publicOffer(offer, { details: content.details, language: snapshot.language }) };
}

/** Reads and projects one offer: the offer row, then (remote offers that may be shown) the selected snapshot. */
export async function loadOfferInfo(sql: Sql, offerId: string): Promise<OfferInfoContent> {
  const offer = await findOffer(sql, offerId);
  const needsSnapshot = offer !== undefined && offer.kind === 'remote' && !hasWithdrawnContent(offer);
  return projectOfferInfo(offer, needsSnapshot ? await selectRemoteSnapshot(sql, offerId) : undefined);
}
