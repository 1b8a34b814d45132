/** One entry of a bounded log: its id (orders the entries; a page cursor) and its value. */
export interface BoundedEntry<T> {
  id: string;
  value: T;
}

/**
 * A log that keeps only its newest entries, for diagnostics: it never grows without bound, and
 * writing to it never fails or delays the caller (entries may be lost instead).
 */
export interface BoundedLog<T> {
  /** Queues the entry and returns at once; never throws. */
  append(value: T): void;
  /** Up to `count` entries older than `before` (the newest when undefined), newest first. */
  older(before: string | undefined, count: number): Promise<BoundedEntry<T>[]>;
  /** Up to `count` entries newer than `after`, oldest first. */
  newer(after: string, count: number): Promise<BoundedEntry<T>[]>;
  /** Resolves once every entry appended so far is stored or given up. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Entry ids are a sequence number (in-process) or a Redis stream id (`ms-seq`). */
const ENTRY_ID = /^([0-9]{1,20})(?:-([0-9]{1,20}))?$/;
/** Redis stream id parts are unsigned 64-bit: a larger one (twenty digits allow it) is refused by Redis, not read as no entries. */
export const MAX_ENTRY_ID_PART = 2n ** 64n - 1n;

/** Whether `text` is an entry id either store can page from (a cursor from a link may have been edited). */
export function isEntryId(text: string): boolean {
  const match = ENTRY_ID.exec(text);
  return match !== null && match.slice(1).every((part) => part === undefined || BigInt(part) <= MAX_ENTRY_ID_PART);
}

/**
 * Why an entry was not stored: the write queue was full, the store refused or failed, or its source
 * had sent its share of entries this minute.
 */
export type LostEntry = 'queue_full' | 'store_error' | 'source_over_budget';
