import { UUID_TEXT_LENGTH, UUID_WORDS, uuidWordsFromText, writeUuidText } from '../../../../platform/ids/uuid-words.js';
import { StringTable } from '../../../../platform/text/string-table.js';
import { copyBytes, viewOf } from './copy-bytes.js';
import { formatServedAt, opensLink, type ServedCard } from './instances-cards.js';

/**
 * Served cards kept as bytes and small integers rather than objects: an open-addressing table of
 * fixed-size slots (typed arrays) over one byte arena holding each card's own parts of an answer,
 * already as UTF-8. A slot holds its card's id as four words (uuid-words.ts), so an id is
 * found by comparing four integers, without reading the arena. Looking a card up touches one slot and the card's few arena bytes, next to each
 * other in memory, where a Map of card objects walks several scattered heap objects per id; with
 * hundreds of thousands of cards kept those reads miss the processor's caches, and they were most
 * of the instance route's time. A table holds at most `capacity` cards and never forgets one
 * (`clear` empties it): the served card cache rotates two of them.
 */

/** A card's parts of an answer: its id, served_at, placement_id (JSON), link (JSON string content). */
export const CARD_TEXTS = ['id', 'servedAt', 'placement', 'link'] as const;
export type CardText = 0 | 1 | 2 | 3;
/** Times an answer's item may hold a card's id (the item's and its offer's offer_instance_id); its other texts once. */
export const CARD_ID_TEXTS_MOST = 2;

// A slot: the id's four words, flags (0: an empty slot), where the texts after the id start in the
// arena and where each of them ends (START + 1 to START + 3, in CARD_TEXTS order), then what the
// route decides with: application, offer and placement (indexes of interned strings, -1 for no
// placement). The id's text is written from its words: the arena holds only the other three.
const [KEY, FLAGS, START, APPLICATION, OFFER, PLACEMENT] = [0, 4, 5, 9, 10, 11];
const STRIDE = 12;
const USED = 1;
const LIVE = 2;
const OPENS_LINK = 4;
/** Bytes reserved per card; the arena grows past that when links are long. */
const ARENA_BYTES_PER_CARD = 128;
/** Cards a new table has room for before it first grows. */
const FIRST_CARDS = 1024;
const ID = 0;

/** Slots for `cards`: a power of two, the table at most half full so that a probe stays short. */
function slotsFor(cards: number): number {
  let count = 2;
  while (count < cards * 2) count *= 2;
  return count;
}

/** A hash of an id from its last two words (random in UUIDv7 and v4), mixed. */
const hashOf = (words: Int32Array, at: number) => Math.imul(words[at + 3]! ^ Math.imul(words[at + 2]!, 0x85ebca6b), 0x9e3779b1) >>> 2;

/** The words of one id looked up or kept by its text. */
const scratchWords = new Int32Array(UUID_WORDS);

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

  /** The slot of the card with this id (a canonical UUID; any other text is never kept), or -1. */
  find(id: string): number {
    return uuidWordsFromText(id, scratchWords, 0) ? this.findWords(scratchWords, 0) : -1;
  }

  /** The slot of the card whose id has the words at `at` in `words`, or -1. */
  findWords(words: Int32Array, at: number): number {
    const { slots, mask } = this;
    for (let slot = hashOf(words, at) & mask; ; slot = (slot + 1) & mask) {
      const base = slot * STRIDE;
      if (slots[base + FLAGS] === 0) return -1;
      if (
        slots[base + KEY + 3] === words[at + 3] &&
        slots[base + KEY] === words[at] &&
        slots[base + KEY + 1] === words[at + 1] &&
        slots[base + KEY + 2] === words[at + 2]
      ) {
        return slot;
      }
    }
  }

  /**
   * `findWords` of `count` ids (four words each), into `places` (same index). The ids' slots are
   * read first, then the arena lines of those slots' cards (the answer copies their texts next),
   * then each id is compared: with hundreds of thousands of cards both reads miss the
   * processor's caches, and loads that do not wait on each other are in flight together, where
   * looking up one id after another waits out each miss in turn.
   */
  findAll(words: Int32Array, count: number, places: Int32Array): void {
    const { slots, arena, mask } = this;
    let touched = 0;
    for (let index = 0; index < count; index += 1) {
      const at = (hashOf(words, index * UUID_WORDS) & mask) * STRIDE;
      places[index] = at;
      touched |= slots[at + START]!;
    }
    for (let index = 0; index < count; index += 1) {
      // The card's texts span one or two cache lines.
      const at = places[index]!;
      touched |= (arena[slots[at + START]!] ?? 0) | (arena[slots[at + START + 3]! - 1] ?? 0);
    }
    // Kept where the compiler sees it used, so that the reads above are not left out as dead code.
    this.touched = touched;
    for (let index = 0; index < count; index += 1) places[index] = this.findWords(words, index * UUID_WORDS);
  }

  /** Keeps a card read from the serves read model; its slot, or -1 when the table is full or already holds the id. */
  add(card: ServedCard): number {
    if (this.isFull || !uuidWordsFromText(card.offer_instance_id, scratchWords, 0) || this.findWords(scratchWords, 0) >= 0) return -1;
    const texts = [formatServedAt(card.served_at), JSON.stringify(card.placement_id), card.link_url === null ? '' : JSON.stringify(card.link_url).slice(1, -1)];
    this.reserve(texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0));
    const at = this.freeSlot(scratchWords, 0);
    this.slots[at + START] = this.arenaUsed;
    texts.forEach((text, index) => {
      this.arenaUsed += this.arena.write(text, this.arenaUsed, 'utf8');
      this.slots[at + START + 1 + index] = this.arenaUsed;
    });
    this.slots[at + APPLICATION] = this.strings.idOf(card.application_id);
    this.slots[at + OFFER] = this.strings.idOf(card.offer_id);
    this.slots[at + PLACEMENT] = card.placement_id === null ? -1 : this.strings.idOf(card.placement_id);
    this.slots[at + FLAGS] = USED | (card.environment === 'live' ? LIVE : 0) | (opensLink(card) ? OPENS_LINK : 0);
    this.count += 1;
    return at / STRIDE;
  }

  /** Keeps the card another table holds at `slot`; as `add`. */
  addFrom(other: CardTable, slot: number): number {
    const from = slot * STRIDE;
    if (this.isFull || this.findWords(other.slots, from + KEY) >= 0) return -1;
    const start = other.slots[from + START]!;
    const end = other.slots[from + START + 3]!;
    this.reserve(end - start);
    const at = this.freeSlot(other.slots, from + KEY);
    const shift = this.arenaUsed - start;
    other.arena.copy(this.arena, this.arenaUsed, start, end);
    this.arenaUsed += end - start;
    for (let text = 0; text <= 3; text += 1) this.slots[at + START + text] = other.slots[from + START + text]! + shift;
    this.slots[at + APPLICATION] = this.strings.idOf(other.applicationId(slot));
    this.slots[at + OFFER] = this.strings.idOf(other.offerId(slot));
    const placementId = other.placementId(slot);
    this.slots[at + PLACEMENT] = placementId === null ? -1 : this.strings.idOf(placementId);
    this.slots[at + FLAGS] = other.slots[from + FLAGS]!;
    this.count += 1;
    return at / STRIDE;
  }

  /**
   * Claims the first empty slot for the id whose words are at `at` in `words` and writes them
   * there, growing the table first when it would be over half full; answers where the slot's
   * fields start. The caller sets its flags, which mark it used.
   */
  private freeSlot(words: Int32Array, at: number): number {
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    let slot = hashOf(words, at) & this.mask;
    while (this.slots[slot * STRIDE + FLAGS] !== 0) slot = (slot + 1) & this.mask;
    const base = slot * STRIDE;
    for (let word = 0; word < UUID_WORDS; word += 1) this.slots[base + KEY + word] = words[at + word]!;
    return base;
  }

  /** Twice the slots, every card moved to its place among them. */
  private grow() {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    this.mask = this.mask * 2 + 1;
    for (let from = 0; from < old.length; from += STRIDE) {
      if (old[from + FLAGS] === 0) continue;
      let slot = hashOf(old, from + KEY) & this.mask;
      while (this.slots[slot * STRIDE + FLAGS] !== 0) slot = (slot + 1) & this.mask;
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
    if (text === ID) return UUID_TEXT_LENGTH;
    const at = slot * STRIDE + START + text;
    return this.slots[at]! - this.slots[at - 1]!;
  }

  /** The most bytes the card's texts take in one item: each once, the id CARD_ID_TEXTS_MOST times. */
  mostTextBytes(slot: number): number {
    const at = slot * STRIDE + START;
    return CARD_ID_TEXTS_MOST * UUID_TEXT_LENGTH + this.slots[at + 3]! - this.slots[at]!;
  }

  /** Copies one of the card's texts into `target` (a view of the answer's bytes) at `offset`; answers the offset past it. */
  copyText(slot: number, text: CardText, target: DataView, offset: number): number {
    if (text === ID) return writeUuidText(this.slots, slot * STRIDE + KEY, target, offset);
    const at = slot * STRIDE + START + text;
    return copyBytes(this.arenaView, this.slots[at - 1]!, this.slots[at]!, target, offset);
  }
}
