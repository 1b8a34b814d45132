import { StringTable } from '../../../../platform/text/string-table.js';
import { copyBytes, viewOf } from './copy-bytes.js';
import { formatServedAt, opensLink, type ServedCard } from './instances-cards.js';

/**
 * Served cards kept as bytes and small integers rather than objects: an open-addressing table of
 * fixed-size slots (typed arrays) over one byte arena holding each card's own parts of an answer,
 * already as UTF-8. Looking a card up touches one slot and the card's few arena bytes, next to each
 * other in memory, where a Map of card objects walks several scattered heap objects per id; with
 * hundreds of thousands of cards kept those reads miss the processor's caches, and they were most
 * of the instance route's time. A table holds at most `capacity` cards and never forgets one
 * (`clear` empties it): the served card cache rotates two of them.
 */

/** A card's parts of an answer, in arena order: its id, served_at, placement_id (JSON), link (JSON string content). */
export const CARD_TEXTS = ['id', 'servedAt', 'placement', 'link'] as const;
export type CardText = 0 | 1 | 2 | 3;

// A slot: the id's hash + 1 (0: empty), where its texts start in the arena, where each of the
// four ends (ID_END and the three after it), then what the route decides with: application,
// offer and placement (indexes of interned strings, -1 for no placement) and flags.
const [HASH, START, ID_END, APPLICATION, OFFER, PLACEMENT, FLAGS] = [0, 1, 2, 6, 7, 8, 9];
const STRIDE = 10;
const LIVE = 1;
const OPENS_LINK = 2;
/** Bytes reserved per card; the arena grows past that when links are long. */
const ARENA_BYTES_PER_CARD = 160;
/** Cards a new table has room for before it first grows. */
const FIRST_CARDS = 1024;

/** Slots for `cards`: a power of two, the table at most half full so that a probe stays short. */
function slotsFor(cards: number): number {
  let count = 2;
  while (count < cards * 2) count *= 2;
  return count;
}

/**
 * A 30-bit hash of an id: its last eight characters (hex digits in a canonical UUID, random in
 * UUIDv7 and v4), mixed. Any string hashes; short or non-hex ones just collide more.
 */
function idHash(id: string): number {
  let key = 0;
  for (let index = id.length - 8; index < id.length; index += 1) key = (key << 4) | (id.charCodeAt(index) & 15);
  return (Math.imul(key, 0x9e3779b1) >>> 2) & 0x3fffffff;
}

export class CardTable {
  private slots: Int32Array;
  private mask: number;
  private arena: Buffer;
  /** The arena read four bytes at a time by copyText. */
  private arenaView: DataView;
  private arenaUsed = 0;
  /** Applications, offers and placements, which repeat across cards: one string each. */
  private strings = new StringTable();
  private count = 0;
  /** What findAll's early reads saw: public, so that the compiler keeps those reads (see there). */
  touched = 0;

  constructor(readonly capacity: number) {
    // Small at first, grown as cards come (a large capacity costs nothing until it is used).
    const first = Math.min(capacity, FIRST_CARDS);
    this.slots = new Int32Array(slotsFor(first) * STRIDE);
    this.mask = slotsFor(first) - 1;
    this.arena = Buffer.allocUnsafe(Math.max(first, 1) * ARENA_BYTES_PER_CARD);
    this.arenaView = viewOf(this.arena);
  }

  get size(): number {
    return this.count;
  }

  /** Bytes the table holds, room reserved for more cards included (the interned ids, a few per thousand cards, aside). */
  get bytes(): number {
    return this.slots.byteLength + this.arena.length;
  }

  get isFull(): boolean {
    return this.count >= this.capacity;
  }

  /** Forgets every card (the memory is kept for the next ones). */
  clear(): void {
    this.slots.fill(0);
    this.arenaUsed = 0;
    this.strings = new StringTable();
    this.count = 0;
  }

  /**
   * The slot of the card with this id, or -1. `id` is what a request holds once parsed (a
   * canonical UUID, ASCII): it is compared with the kept id's bytes character by character, which
   * is exact for ASCII and never matches a stored id that is not.
   */
  find(id: string): number {
    const hash = idHash(id);
    const { slots, arena, mask } = this;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = slot * STRIDE;
      const stored = slots[at + HASH]!;
      if (stored === 0) return -1;
      if (stored !== hash + 1) continue;
      const start = slots[at + START]!;
      if (slots[at + ID_END]! - start !== id.length) continue;
      let same = true;
      for (let index = 0; index < id.length; index += 1) {
        if (arena[start + index] !== id.charCodeAt(index)) {
          same = false;
          break;
        }
      }
      if (same) return slot;
    }
  }

  /**
   * `find` of every id, into `places` (same index). The ids' slots are read first, then the
   * arena lines of those slots' cards, then each id is compared: with hundreds of
   * thousands of cards both reads miss the processor's caches, and loads that do not wait on each
   * other are in flight together, where `find` one id after another waits out each miss in turn.
   */
  findAll(ids: readonly string[], places: Int32Array): void {
    const { slots, arena, mask } = this;
    let touched = 0;
    for (let index = 0; index < ids.length; index += 1) {
      const at = (idHash(ids[index]!) & mask) * STRIDE;
      places[index] = at;
      touched |= slots[at + START]!;
    }
    for (let index = 0; index < ids.length; index += 1) {
      // The card's texts (the answer copies them next) span two or three cache lines.
      const at = places[index]!;
      const start = slots[at + START]!;
      touched |= (arena[start] ?? 0) | (arena[start + 64] ?? 0) | (arena[slots[at + ID_END + 3]! - 1] ?? 0);
    }
    // Kept where the compiler sees it used, so that the reads above are not left out as dead code.
    this.touched = touched;
    for (let index = 0; index < ids.length; index += 1) places[index] = this.find(ids[index]!);
  }

  /** Keeps a card read from the serves read model; its slot, or -1 when the table is full or already holds the id. */
  add(card: ServedCard): number {
    if (this.isFull || this.find(card.offer_instance_id) >= 0) return -1;
    const texts = [
      card.offer_instance_id,
      formatServedAt(card.served_at),
      JSON.stringify(card.placement_id),
      card.link_url === null ? '' : JSON.stringify(card.link_url).slice(1, -1),
    ];
    this.reserve(texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0));
    const at = this.freeSlot(idHash(card.offer_instance_id));
    this.slots[at + START] = this.arenaUsed;
    texts.forEach((text, index) => {
      this.arenaUsed += this.arena.write(text, this.arenaUsed, 'utf8');
      this.slots[at + ID_END + index] = this.arenaUsed;
    });
    this.slots[at + APPLICATION] = this.strings.idOf(card.application_id);
    this.slots[at + OFFER] = this.strings.idOf(card.offer_id);
    this.slots[at + PLACEMENT] = card.placement_id === null ? -1 : this.strings.idOf(card.placement_id);
    this.slots[at + FLAGS] = (card.environment === 'live' ? LIVE : 0) | (opensLink(card) ? OPENS_LINK : 0);
    this.count += 1;
    return at / STRIDE;
  }

  /** Keeps the card another table holds at `slot`; as `add`. */
  addFrom(other: CardTable, slot: number): number {
    const from = slot * STRIDE;
    const start = other.slots[from + START]!;
    const end = other.slots[from + ID_END + 3]!;
    const id = other.arena.toString('utf8', start, other.slots[from + ID_END]!);
    if (this.isFull || this.find(id) >= 0) return -1;
    this.reserve(end - start);
    const at = this.freeSlot(other.slots[from + HASH]! - 1);
    const shift = this.arenaUsed - start;
    other.arena.copy(this.arena, this.arenaUsed, start, end);
    this.arenaUsed += end - start;
    this.slots[at + START] = start + shift;
    for (let text = 0; text < 4; text += 1) this.slots[at + ID_END + text] = other.slots[from + ID_END + text]! + shift;
    this.slots[at + APPLICATION] = this.strings.idOf(other.applicationId(slot));
    this.slots[at + OFFER] = this.strings.idOf(other.offerId(slot));
    const placementId = other.placementId(slot);
    this.slots[at + PLACEMENT] = placementId === null ? -1 : this.strings.idOf(placementId);
    this.slots[at + FLAGS] = other.slots[from + FLAGS]!;
    this.count += 1;
    return at / STRIDE;
  }

  /** Claims the first empty slot for `hash`, growing the table first when it would be over half full; answers where the slot's fields start. */
  private freeSlot(hash: number): number {
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    let slot = hash & this.mask;
    while (this.slots[slot * STRIDE + HASH] !== 0) slot = (slot + 1) & this.mask;
    this.slots[slot * STRIDE + HASH] = hash + 1;
    return slot * STRIDE;
  }

  /** Twice the slots, every card moved to its place among them. */
  private grow() {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    this.mask = this.mask * 2 + 1;
    for (let from = 0; from < old.length; from += STRIDE) {
      const hash = old[from + HASH]!;
      if (hash === 0) continue;
      let slot = (hash - 1) & this.mask;
      while (this.slots[slot * STRIDE + HASH] !== 0) slot = (slot + 1) & this.mask;
      this.slots.set(old.subarray(from, from + STRIDE), slot * STRIDE);
    }
  }

  private reserve(bytes: number) {
    if (this.arenaUsed + bytes <= this.arena.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.arena.length * 2, this.arenaUsed + bytes));
    this.arena.copy(grown, 0, 0, this.arenaUsed);
    this.arena = grown;
    this.arenaView = viewOf(grown);
  }

  applicationId(slot: number): string {
    return this.strings.values[this.slots[slot * STRIDE + APPLICATION]!]!;
  }

  offerId(slot: number): string {
    return this.strings.values[this.slots[slot * STRIDE + OFFER]!]!;
  }

  placementId(slot: number): string | null {
    const index = this.slots[slot * STRIDE + PLACEMENT]!;
    return index < 0 ? null : this.strings.values[index]!;
  }

  isLive(slot: number): boolean {
    return (this.slots[slot * STRIDE + FLAGS]! & LIVE) !== 0;
  }

  /** The card's own half of rule 7 (instances-cards.ts, opensLink). */
  opensLink(slot: number): boolean {
    return (this.slots[slot * STRIDE + FLAGS]! & OPENS_LINK) !== 0;
  }

  /** The UTF-8 length of one of the card's texts. */
  textBytes(slot: number, text: CardText): number {
    const at = slot * STRIDE + START + text;
    return this.slots[at + 1]! - this.slots[at]!;
  }

  /** Copies one of the card's texts into `target` (a view of the answer's bytes) at `offset`; answers the offset past it. */
  copyText(slot: number, text: CardText, target: DataView, offset: number): number {
    const at = slot * STRIDE + START + text;
    return copyBytes(this.arenaView, this.slots[at]!, this.slots[at + 1]!, target, offset);
  }
}
