import type { Sql } from '../../../../platform/db/db.js';
import { findServedInstances } from '../../../../projections/serves/queries.js';
import type { ReadCaches } from '../../read-cache.js';
import { instanceItem, isCallersCard } from './instances-cards.js';
import type { InstanceItem } from './instances-schema.js';

/**
 * One item per id, in order: one set read of the served cards (never cached: it is what the
 * request is about), then the offers and placements of the caller's cards only, from the caches.
 * Throws whatever the read models throw; the route answers 503 for it (no partial success).
 */
export async function lookupInstances(sql: Sql, caches: ReadCaches, applicationId: string, ids: string[]): Promise<InstanceItem[]> {
  const cards = new Map((await findServedInstances(sql, ids)).map((card) => [card.offer_instance_id, card]));
  const owned = [...cards.values()].filter((card) => isCallersCard(card, applicationId));
  const offerIds = [...new Set(owned.map((card) => card.offer_id))];
  const placementIds = [...new Set(owned.flatMap((card) => (card.placement_id === null ? [] : [card.placement_id])))];
  const [offers, placements] = await Promise.all([caches.offers(sql, offerIds), caches.placements(sql, placementIds)]);
  return ids.map((id) => {
    const card = cards.get(id);
    return instanceItem(id, applicationId, card, card && offers.get(card.offer_id), card?.placement_id ? placements.get(card.placement_id) : null);
  });
}
