import type { Sql } from '../../../../platform/db/db.js';
import { mayBeUnapplied } from '../../../../platform/ids/recently-minted.js';
import type { Placement } from '../../../../projections/accounts/queries.js';
import type { StoredOffer } from '../../../../projections/offers/queries.js';
import type { ReadCaches } from '../../read-cache.js';
import type { InstancesAnswer } from './instances-answer.js';
import type { CardTable } from './card-table.js';
import { hasAction, isServedTo } from './instances-cards.js';
import type { RequestedIds } from './requested-ids.js';
import type { ServedCardCache } from './served-card-cache.js';

/** Where an answer's rows come from; undefined means "not at hand" (null: known not to exist). */
interface Rows {
  /** Per requested id, in order: the card's place (see `table`), -1 when not at hand, -2 when known not to exist. */
  places: Int32Array;
  table(place: number): CardTable;
  slotOf(place: number): number;
  offer(id: string): StoredOffer | null | undefined;
  placement(id: string): Placement | null | undefined;
}

const NOT_AT_HAND = -1;
const UNKNOWN = -2;

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
  requested: RequestedIds,
  servesAtEnd: { lastSeen(): number | undefined; await(): Promise<void> },
  allocate?: (bytes: number) => Buffer,
  now = Date.now(),
): Promise<Buffer> {
  const kept = writeAnswer(answer, applicationId, requested, { places: served.findAll(requested), table: served.table, slotOf: served.slotOf, offer: caches.offerIfKept, placement: caches.placementIfKept }, allocate);
  if (kept !== undefined) return kept;
  const ids = requested.list;
  let cards = await served.load(sql, ids);
  const seenAtEnd = servesAtEnd.lastSeen();
  const fresh = ids.filter((id) => cards.find(id) < 0 && mayBeUnapplied(id, seenAtEnd, now));
  if (fresh.length > 0) {
    await servesAtEnd.await();
    cards = await served.load(sql, ids);
  }
  const offerIds = new Set<string>();
  const placementIds = new Set<string>();
  for (const id of ids) {
    const slot = cards.find(id);
    if (slot < 0 || !isCallersCard(cards, slot, applicationId)) continue;
    offerIds.add(cards.offerId(slot));
    const placementId = cards.placementId(slot);
    if (placementId !== null) placementIds.add(placementId);
  }
  const [offers, placements] = await Promise.all([caches.offers(sql, [...offerIds]), caches.placements(sql, [...placementIds])]);
  const rows: Rows = {
    places: Int32Array.from(ids, (id) => {
      const slot = cards.find(id);
      return slot < 0 ? UNKNOWN : slot;
    }),
    table: () => cards,
    slotOf: (slot) => slot,
    offer: (id) => offers.get(id),
    placement: (id) => placements.get(id),
  };
  const read = writeAnswer(answer, applicationId, requested, rows, allocate);
  if (read === undefined) throw new Error('a row read for the instance answer is missing');
  return read;
}

/** Rule 2 (instances-cards.ts) for a kept card. */
const isCallersCard = (table: CardTable, slot: number, applicationId: string) => isServedTo(table.applicationId(slot), table.isLive(slot), applicationId);

/** The answer from `rows`, or undefined as soon as one it needs is not at hand. */
function writeAnswer(answer: InstancesAnswer, applicationId: string, requested: RequestedIds, rows: Rows, allocate?: (bytes: number) => Buffer): Buffer | undefined {
  const writer = answer.start(allocate);
  for (let index = 0; index < requested.count; index += 1) {
    const place = rows.places[index]!;
    if (place === NOT_AT_HAND) return undefined;
    const table = place === UNKNOWN ? undefined : rows.table(place);
    const slot = rows.slotOf(place);
    if (table === undefined || !isCallersCard(table, slot, applicationId)) {
      writer.notFound(requested.id(index));
      continue;
    }
    const offer = rows.offer(table.offerId(slot));
    if (offer === undefined) return undefined;
    if (offer === null) {
      writer.notFound(requested.id(index));
      continue;
    }
    const placementId = table.placementId(slot);
    const placement = placementId === null ? null : rows.placement(placementId);
    if (placement === undefined) return undefined;
    writer.found(table, slot, offer, hasAction(table.opensLink(slot), placementId, offer, placement, applicationId));
  }
  return writer.finish();
}
