// Generated from schemas/<topic>/*.avsc by `npm run schemas:generate`. Do not edit by hand;
// `npm run schemas:check` (and the test suite) fails when this file is stale.

/** A diagnostic catalog entry was recorded or replaced. Used to prove the backbone end to end (round trip, crash recovery, replay, benchmarks). */
export interface CatalogEntryRecorded {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** Identity of the entry; the partition key. */
  entry_id: string;
  /** Display name of the entry. */
  name: string;
  /** Exact decimal string, e.g. "12.50". */
  amount: string;
  /** ISO 4217 code. */
  currency: string;
  /** Free labels, kept in order. */
  tags: Array<string>;
  /** When the writer recorded it, UTC epoch milliseconds. */
  recorded_at: number;
}
/** A diagnostic catalog entry was removed; later events for the same entry may record it again. */
export interface CatalogEntryRemoved {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** Identity of the removed entry; the partition key. */
  entry_id: string;
  /** Why it was removed, when given. */
  reason: null | string;
  /** When it was removed, UTC epoch milliseconds. */
  removed_at: number;
}

/** Full Avro name of every event type, by short name. */
export const EventType = {
  CatalogEntryRecorded: 'offerledger.catalog.CatalogEntryRecorded',
  CatalogEntryRemoved: 'offerledger.catalog.CatalogEntryRemoved',
} as const;

/** The value type of each event, by full Avro name. */
export interface EventValues {
  'offerledger.catalog.CatalogEntryRecorded': CatalogEntryRecorded;
  'offerledger.catalog.CatalogEntryRemoved': CatalogEntryRemoved;
}

/** The topic that carries each event type. */
export const eventTopic = {
  'offerledger.catalog.CatalogEntryRecorded': 'catalog',
  'offerledger.catalog.CatalogEntryRemoved': 'catalog',
} as const;

export type EventTypeName = keyof EventValues;
export type Topic = (typeof eventTopic)[EventTypeName];
