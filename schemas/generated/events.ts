// Generated from schemas/<topic>/*.avsc by `npm run schemas:generate`. Do not edit by hand;
// `npm run schemas:check` (and the test suite) fails when this file is stale.

export type ApiKeyKind = 'live' | 'test' | 'sandbox';
/** An API key was issued. Carries only the keyed hash and a display prefix, never the key itself. Keyed by application_id (by key_id for the shared sandbox key, which has no application). */
export interface ApiKeyIssued {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** Canonical lowercase UUIDv7 of the key; how admins refer to it (e.g. to revoke it). */
  key_id: string;
  /** live: application-owned server key; test: application-owned test key (svc_test_), refused by the offer routes; sandbox: the one shared public key. */
  kind: ApiKeyKind;
  /** HMAC-SHA256 of the clear key under the server-side KEY_HASH_SECRET, lowercase hex (64 characters). */
  key_hash: string;
  /** The first characters of the key (kind prefix plus a few more), shown to help people tell keys apart. */
  display_prefix: string;
  /** The application that owns the key; null for the shared sandbox key. */
  application_id: null | string;
  /** Free label given at issue time, e.g. the server that uses the key. */
  label: null | string;
  /** When the key was issued, UTC epoch milliseconds. */
  issued_at: number;
}
/** An API key was revoked for good; it authenticates nothing afterwards. Keyed like its ApiKeyIssued event. */
export interface ApiKeyRevoked {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** The revoked key. */
  key_id: string;
  /** The application that owns the key; null for the shared sandbox key. */
  application_id: null | string;
  /** Why it was revoked, when given (internal). */
  reason: null | string;
  /** When the key was revoked, UTC epoch milliseconds. */
  revoked_at: number;
}
export type ApplicationStatus = 'live' | 'live_limited' | 'paused' | 'suspended';
/** An application was registered under a developer account. Keyed by application_id, so the application's keys and placements follow it in order. */
export interface ApplicationRegistered {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** Canonical lowercase UUIDv7 of the application; the partition key. */
  application_id: string;
  /** The developer account that owns the application. */
  developer_id: string;
  /** Display name of the application. */
  name: string;
  /** Initial status: live and live_limited may call the offer routes, paused and suspended get 403 APPLICATION_NOT_SERVING. */
  status: ApplicationStatus;
  /** When the application was registered, UTC epoch milliseconds. */
  registered_at: number;
}
/** An application's status changed. Keyed by application_id. */
export interface ApplicationStatusChanged {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** The application whose status changed; the partition key. */
  application_id: string;
  /** The new status (live, live_limited, paused or suspended). */
  status: ApplicationStatus;
  /** Why the status changed, when given (internal). */
  reason: null | string;
  /** When the status changed, UTC epoch milliseconds. */
  changed_at: number;
}
/** A placement, and with it its application, became the default through which anonymous Query requests (no placement_id) are served. The latest designation replaces earlier ones. Keyed by the constant 'default-placement', so designations keep their order. */
export interface DefaultPlacementDesignated {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** The default placement. */
  placement_id: string;
  /** The application that owns the placement: the default application, owner of anonymous serves. */
  application_id: string;
  /** When the designation was made, UTC epoch milliseconds. */
  designated_at: number;
}
/** A developer account was registered. It starts active; suspension is a later DeveloperStatusChanged. Keyed by developer_id. */
export interface DeveloperRegistered {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** Canonical lowercase UUIDv7 of the developer account; the partition key. */
  developer_id: string;
  /** Display name of the developer or company. */
  name: string;
  /** Contact address of the account, lowercased. */
  email: string;
  /** When the account was registered, UTC epoch milliseconds. */
  registered_at: number;
}
export type DeveloperStatus = 'active' | 'suspended';
/** A developer account was suspended or reinstated. Keyed by developer_id. */
export interface DeveloperStatusChanged {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** The developer account whose status changed; the partition key. */
  developer_id: string;
  /** The new status: active accounts may call the offer routes, suspended ones get 403 DEVELOPER_SUSPENDED. */
  status: DeveloperStatus;
  /** Why the status changed, when given (internal; never shown to the developer by the API). */
  reason: null | string;
  /** When the status changed, UTC epoch milliseconds. */
  changed_at: number;
}
export type PlacementStatus = 'active' | 'inactive';
/** A placement (a slot in an application where offers are shown) was created. Keyed by application_id. */
export interface PlacementCreated {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** Canonical lowercase UUIDv7 of the placement. */
  placement_id: string;
  /** The one application that owns the placement; the partition key. */
  application_id: string;
  /** Display name of the placement. */
  name: string;
  /** Initial status; only an active placement can serve, and cards of an inactive one lose their action. */
  status: PlacementStatus;
  /** When the placement was created, UTC epoch milliseconds. */
  created_at: number;
}
/** A placement was activated or deactivated. Keyed by application_id. */
export interface PlacementStatusChanged {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** The placement whose status changed. */
  placement_id: string;
  /** The application that owns the placement; the partition key. */
  application_id: string;
  /** The new status (active or inactive). */
  status: PlacementStatus;
  /** When the status changed, UTC epoch milliseconds. */
  changed_at: number;
}
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
  ApiKeyIssued: 'offerledger.accounts.ApiKeyIssued',
  ApiKeyRevoked: 'offerledger.accounts.ApiKeyRevoked',
  ApplicationRegistered: 'offerledger.accounts.ApplicationRegistered',
  ApplicationStatusChanged: 'offerledger.accounts.ApplicationStatusChanged',
  DefaultPlacementDesignated: 'offerledger.accounts.DefaultPlacementDesignated',
  DeveloperRegistered: 'offerledger.accounts.DeveloperRegistered',
  DeveloperStatusChanged: 'offerledger.accounts.DeveloperStatusChanged',
  PlacementCreated: 'offerledger.accounts.PlacementCreated',
  PlacementStatusChanged: 'offerledger.accounts.PlacementStatusChanged',
  CatalogEntryRecorded: 'offerledger.catalog.CatalogEntryRecorded',
  CatalogEntryRemoved: 'offerledger.catalog.CatalogEntryRemoved',
} as const;

/** The value type of each event, by full Avro name. */
export interface EventValues {
  'offerledger.accounts.ApiKeyIssued': ApiKeyIssued;
  'offerledger.accounts.ApiKeyRevoked': ApiKeyRevoked;
  'offerledger.accounts.ApplicationRegistered': ApplicationRegistered;
  'offerledger.accounts.ApplicationStatusChanged': ApplicationStatusChanged;
  'offerledger.accounts.DefaultPlacementDesignated': DefaultPlacementDesignated;
  'offerledger.accounts.DeveloperRegistered': DeveloperRegistered;
  'offerledger.accounts.DeveloperStatusChanged': DeveloperStatusChanged;
  'offerledger.accounts.PlacementCreated': PlacementCreated;
  'offerledger.accounts.PlacementStatusChanged': PlacementStatusChanged;
  'offerledger.catalog.CatalogEntryRecorded': CatalogEntryRecorded;
  'offerledger.catalog.CatalogEntryRemoved': CatalogEntryRemoved;
}

/** The topic that carries each event type. */
export const eventTopic = {
  'offerledger.accounts.ApiKeyIssued': 'accounts',
  'offerledger.accounts.ApiKeyRevoked': 'accounts',
  'offerledger.accounts.ApplicationRegistered': 'accounts',
  'offerledger.accounts.ApplicationStatusChanged': 'accounts',
  'offerledger.accounts.DefaultPlacementDesignated': 'accounts',
  'offerledger.accounts.DeveloperRegistered': 'accounts',
  'offerledger.accounts.DeveloperStatusChanged': 'accounts',
  'offerledger.accounts.PlacementCreated': 'accounts',
  'offerledger.accounts.PlacementStatusChanged': 'accounts',
  'offerledger.catalog.CatalogEntryRecorded': 'catalog',
  'offerledger.catalog.CatalogEntryRemoved': 'catalog',
} as const;

export type EventTypeName = keyof EventValues;
export type Topic = (typeof eventTopic)[EventTypeName];
