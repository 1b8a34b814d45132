import type { Sql } from '../../../../platform/db/db.js';
import { mayBeUnapplied } from '../../../../platform/ids/recently-minted.js';
import type { Placement } from '../../../../projections/accounts/queries.js';
import type { StoredOffer } from '../../../../projections/offers/queries.js';
import type { ReadCaches } from '../../read-cache.js';
import type { InstancesAnswer } from './instances-answer.js';
import { isCallersCard, keptCardHasAction, type KeptCard } from './instances-cards.js';
import type { ServedCardCache } from './served-card-cache.js';

/** Where an answer's rows come from; undefined means "not at hand" (null: known not to exist). */
interface Rows {
  card(id: string): KeptCard | null | undefined;
  offer(id: string): StoredOffer | null | undefined;
  placement(id: string): Placement | null | undefined;
}

/**
 * The whole 200 answer, one item per id, in order: the served cards (kept once read: a serve never
 * changes), then the offers and placements of the caller's cards only, from the caches. When
 * every row is already in process (the usual case for cards looked up again) the answer is
 * written in one pass without waiting on anything; otherwise the missing rows are read first. An
 * unknown id that may be a card not projected yet (minted shortly before the serves projection
 * was last seen at the log's end, or after) is read again once `servesAtEnd.await` resolves (the
 * projection has reached the log's end). Throws whatever the read models and that wait throw; the
 * route answers 503 for it (no partial success).
 */
export async function lookupInstances(
  sql: Sql,
  caches: ReadCaches,
  served: ServedCardCache,
  answer: InstancesAnswer,
  applicationId: string,
  ids: string[],
  servesAtEnd: { lastSeen(): number | undefined; await(): Promise<void> },
  allocate?: (bytes: number) => Buffer,
  now = Date.now(),
): Promise<Buffer> {
  const kept = writeAnswer(answer, applicationId, ids, { card: served.cardIfKept, offer: caches.offerIfKept, placement: caches.placementIfKept }, allocate);
  if (kept !== undefined) return kept;
  const cards = await served.cards(sql, ids);
  const seenAtEnd = servesAtEnd.lastSeen();
  const fresh = ids.filter((id) => cards.get(id) === null && mayBeUnapplied(id, seenAtEnd, now));
  if (fresh.length > 0) {
    await servesAtEnd.await();
    for (const [id, card] of await served.cards(sql, fresh)) cards.set(id, card);
  }
  const offerIds = new Set<string>();
  const placementIds = new Set<string>();
  for (const card of cards.values()) {
    if (!card || !isCallersCard(card, applicationId)) continue;
    offerIds.add(card.offer_id);
    if (card.placement_id !== null) placementIds.add(card.placement_id);
  }
  const [offers, placements] = await Promise.all([caches.offers(sql, [...offerIds]), caches.placements(sql, [...placementIds])]);
  const read = writeAnswer(answer, applicationId, ids, { card: (id) => cards.get(id), offer: (id) => offers.get(id), placement: (id) => placements.get(id) }, allocate);
  if (read === undefined) throw new Error('a row read for the instance answer is missing');
  return read;
}

/** The answer from `rows`, or undefined as soon as one it needs is not at hand. */
function writeAnswer(answer: InstancesAnswer, applicationId: string, ids: string[], rows: Rows, allocate?: (bytes: number) => Buffer): Buffer | undefined {
  const writer = answer.start();
  for (const id of ids) {
    const card = rows.card(id);
    if (card === undefined) return undefined;
    if (card === null || !isCallersCard(card, applicationId)) {
      writer.notFound(id);
      continue;
    }
    const offer = rows.offer(card.offer_id);
    if (offer === undefined) return undefined;
    if (offer === null) {
      writer.notFound(id);
      continue;
    }
    const placement = card.placement_id === null ? null : rows.placement(card.placement_id);
    if (placement === undefined) return undefined;
    writer.found(card, offer, keptCardHasAction(card, offer, placement, applicationId));
  }
  return writer.finish(allocate);
}
