import type { Sql } from '../../../../platform/db/db.js';
import type { ReadCaches } from '../../read-cache.js';
import type { InstancesAnswer } from './instances-answer.js';
import { cardAction, isCallersCard } from './instances-cards.js';
import type { ServedCardCache } from './served-card-cache.js';

/**
 * The whole 200 answer, one item per id, in order: the served cards (kept once read: a serve never
 * changes), then the offers and placements of the caller's cards only, from the caches.
 * Throws whatever the read models throw; the route answers 503 for it (no partial success).
 */
export async function lookupInstances(
  sql: Sql,
  caches: ReadCaches,
  served: ServedCardCache,
  answer: InstancesAnswer,
  applicationId: string,
  ids: string[],
): Promise<string> {
  const cards = await served.cards(sql, ids);
  const offerIds = new Set<string>();
  const placementIds = new Set<string>();
  for (const card of cards.values()) {
    if (!card || !isCallersCard(card, applicationId)) continue;
    offerIds.add(card.offer_id);
    if (card.placement_id !== null) placementIds.add(card.placement_id);
  }
  const [offers, placements] = await Promise.all([caches.offers(sql, [...offerIds]), caches.placements(sql, [...placementIds])]);
  const items: string[] = new Array<string>(ids.length);
  for (let index = 0; index < ids.length; index += 1) {
    const id = ids[index]!;
    const card = cards.get(id);
    const offer = card && isCallersCard(card, applicationId) ? offers.get(card.offer_id) : undefined;
    if (!card || !offer) {
      items[index] = answer.notFound(id);
      continue;
    }
    const placement = card.placement_id === null ? null : (placements.get(card.placement_id) ?? null);
    items[index] = answer.found(card.values, offer, cardAction(card, offer, placement, applicationId) !== undefined);
  }
  return answer.envelope(items);
}
