import { UUID_TEXT_LENGTH, UUID_WORDS, uuidWordsFromText } from '../../../../platform/ids/uuid-words.js';

/**
 * The ids one instance request asks for (canonical UUIDs, duplicates removed, in request order),
 * as words for the card table (uuid-words.ts) and as text only when an id's text is needed (an
 * id not found, a card read from Postgres): made from the body's bytes, 100 strings would cost
 * more than looking the ids up.
 */
export class RequestedIds {
  /** Four words per id. */
  readonly words: Int32Array;
  private texts: readonly string[] | undefined;

  private constructor(
    readonly count: number,
    words: Int32Array,
    texts: readonly string[] | undefined,
    private readonly body?: { bytes: Buffer; starts: Int32Array },
  ) {
    this.words = words;
    this.texts = texts;
  }

  /** From canonical ids already parsed (parseInstancesBody's); throws for any other text. */
  static fromTexts(ids: readonly string[]): RequestedIds {
    const words = new Int32Array(ids.length * UUID_WORDS);
    ids.forEach((id, index) => {
      if (!uuidWordsFromText(id, words, index * UUID_WORDS)) throw new Error(`not a canonical UUID: ${JSON.stringify(id)}`);
    });
    return new RequestedIds(ids.length, words, ids);
  }

  /** Ids read from the body's bytes: each one's text starts at one of `starts`, its words are at four times its index. */
  static read(bytes: Buffer, starts: Int32Array, words: Int32Array): RequestedIds {
    return new RequestedIds(starts.length, words, undefined, { bytes, starts });
  }

  /** The text of the id at `index`. */
  id(index: number): string {
    return this.texts === undefined ? this.textInBody(index) : this.texts[index]!;
  }

  /** Every id's text, in order. */
  get list(): readonly string[] {
    if (this.texts === undefined) {
      this.texts = Array.from({ length: this.count }, (_, index) => this.textInBody(index));
    }
    return this.texts;
  }

  private textInBody(index: number): string {
    const { bytes, starts } = this.body!;
    return bytes.toString('latin1', starts[index]!, starts[index]! + UUID_TEXT_LENGTH);
  }
}
