import type { Sql } from '../../../../platform/db/db.js';
import type { Watermarks } from '../../../../platform/projection/watermarks.js';
import { findServedInstances } from '../../../../projections/serves/queries.js';
import { UUID_WORDS } from '../../../../platform/ids/uuid-words.js';
import { CardTable } from './card-table.js';
import type { ServedCard } from './instances-cards.js';
import type { RequestedIds } from './requested-ids.js';

/**
 * Served cards by offer_instance_id, kept in process: a serve is written once and never changes,
 * so a card read once answers every later lookup of its id without Postgres. Unknown ids are
 * never kept (their serve may be applied a moment later). Everything is dropped when the process
 * may have stopped hearing the projectors (a notification gap: the listening session dropped,
 * Postgres restarted or was replaced), so a read model that cannot be read is still a 503, not a
 * cached success. At most `maxEntries` cards are kept (rounded up to an even number), in two tables of half that each: new cards
 * go into the newer; when it is full the older is emptied and takes its place, so the oldest
 * half goes first. 0 keeps none.
 */
export interface ServedCardCache {
  /** Where the kept card of `id` is (see `table`), or -1 when it is not in process (unknown, or not read yet); nothing is read. */
  find(id: string): number;
  /** `find` of every id asked for, in order (quicker than one at a time: CardTable.findAll). */
  findAll(requested: RequestedIds): Int32Array;
  /** The table a place found by `find` is in; `slotOf` gives its slot there. */
  table(place: number): CardTable;
  slotOf(place: number): number;
  /**
   * The cards of `ids` (canonical lowercase UUIDs) in a table of this request's own (it stays
   * whole whatever the cache drops meanwhile): those kept, and the others read from the read
   * model and kept from then on; an id missing from it is unknown. Throws what the read model throws.
   */
  load(sql: Sql, ids: readonly string[]): Promise<CardTable>;
  readonly size: number;
  /** Bytes the kept cards hold (CardTable.bytes of both tables). */
  readonly bytes: number;
  close(): void;
}

export function openServedCardCache(watermarks: Pick<Watermarks, 'onApplied'>, options: { maxEntries: number }): ServedCardCache {
  const half = Math.ceil(options.maxEntries / 2);
  /** [newer, older]. */
  const tables = [new CardTable(half), new CardTable(half)];
  /** Bumped by every drop: a load that started before one answers its request but keeps nothing. */
  let generation = 0;
  const unsubscribe = watermarks.onApplied((position) => {
    if (position) return;
    generation += 1;
    for (const table of tables) table.clear();
  });

  const keep = (card: ServedCard) => {
    if (tables[0]!.capacity === 0 || tables[0]!.find(card.offer_instance_id) >= 0 || tables[1]!.find(card.offer_instance_id) >= 0) return;
    if (tables[0]!.isFull) {
      const emptied = tables[1]!;
      emptied.clear();
      tables[1] = tables[0]!;
      tables[0] = emptied;
    }
    tables[0]!.add(card);
  };

  return {
    find(id) {
      const newer = tables[0]!.find(id);
      if (newer >= 0) return newer * 2;
      const older = tables[1]!.find(id);
      return older >= 0 ? older * 2 + 1 : -1;
    },
    findAll(requested) {
      const places = new Int32Array(requested.count);
      tables[0]!.findAll(requested.words, requested.count, places);
      const older = tables[1]!;
      for (let index = 0; index < places.length; index += 1) {
        const newer = places[index]!;
        if (newer >= 0) places[index] = newer * 2;
        else if (older.size > 0) {
          const slot = older.findWords(requested.words, index * UUID_WORDS);
          places[index] = slot >= 0 ? slot * 2 + 1 : -1;
        }
      }
      return places;
    },
    table: (place) => tables[place & 1]!,
    slotOf: (place) => place >> 1,
    async load(sql, ids) {
      const answered = new CardTable(ids.length);
      const missing: string[] = [];
      for (const id of ids) {
        const place = this.find(id);
        if (place >= 0) answered.addFrom(this.table(place), this.slotOf(place));
        else missing.push(id);
      }
      if (missing.length === 0) return answered;
      const startedIn = generation;
      for (const row of await findServedInstances(sql, missing)) {
        answered.add(row);
        if (startedIn === generation) keep(row);
      }
      return answered;
    },
    get size() {
      return tables[0]!.size + tables[1]!.size;
    },
    get bytes() {
      return tables[0]!.bytes + tables[1]!.bytes;
    },
    close: unsubscribe,
  };
}
