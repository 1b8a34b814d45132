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
export type ClickedLinkShape = 'short_code' | 'instance_uuid' | 'static_path';
export type ClickEnvironment = 'live' | 'test' | 'sandbox';
/** A tracked link on the link origin was opened and redirected; the click a conversion can be attributed to. */
export interface LinkClicked {
  /** Canonical lowercase UUIDv7 minted for this click; the partition key, delivered to the destination. */
  svc_click_id: string;
  /** short_code: /{8 alphanumerics}; instance_uuid: /{root instance UUID}; static_path: /static/st_{token}. */
  link_shape: ClickedLinkShape;
  /** The identifying path segment of the opened link: svc_tracking_id, the id of the tracked link itself. */
  link_code: string;
  /** The served card the link belongs to, when it has one; null for a static offer-wall link. */
  offer_instance_id: null | string;
  /** The application the link was issued to, when known. */
  application_id: null | string;
  /** The offer the link opens. */
  offer_id: string;
  /** The serve's environment for a card's link; live for registered links. */
  environment: ClickEnvironment;
  /** When the link was opened, UTC epoch milliseconds. */
  clicked_at: number;
  /** sub_id1 query parameter of the click, passed through. */
  sub_id1: null | string;
  /** sub_id2 query parameter of the click, passed through. */
  sub_id2: null | string;
  /** sub_id3 query parameter of the click, passed through. */
  sub_id3: null | string;
  /** sub_id4 query parameter of the click, passed through. */
  sub_id4: null | string;
  /** sub_id5 query parameter of the click, passed through. */
  sub_id5: null | string;
  /** Where the click was redirected: the frozen destination with its macros substituted or svc_click_id appended. */
  redirect_url: string;
}
export type OfferKind = 'local' | 'remote';
export type OfferStatus = 'active' | 'paused' | 'pending' | 'rejected' | 'expired';
/** The public entity behind the offer. */
export interface OfferEntity {
  /** entity.id. */
  id: string;
  /** entity.name. */
  name: string;
  /** entity.type. */
  type: string;
}
export type OfferPricingModel = 'cpa' | 'cps';
/** One priced goal of an offer. */
export interface OfferGoal {
  /** goals[].event; postbacks map to it through the partner's goal mapping. */
  event: string;
  /** pricing.model. */
  model: OfferPricingModel;
  /** cpa only: exact decimal string, e.g. 12.50. */
  amount: null | string;
  /** cpa only: ISO 4217 code. */
  currency: null | string;
  /** cps only: percentage as an exact decimal string, e.g. 7.5 for 7.5 %. */
  rate: null | string;
}
/** One public creative asset. */
export interface OfferMaterial {
  /** material[].format, e.g. image. */
  format: string;
  /** material[].url, absolute http(s) URL. */
  url: string;
  /** material[].tag, e.g. icon. */
  tag: string;
}
/** Public details of a local offer, in the shape of the offer document. */
export interface OfferDetails {
  /** offer_info.title. */
  title: string;
  /** offer_info.category.id. */
  category_id: string;
  /** offer_info.description. */
  description: string;
  /** Public entity: id, name, type. */
  entity: OfferEntity;
  /** Goals in document order. */
  goals: Array<OfferGoal>;
  /** Creative assets in document order. */
  material: Array<OfferMaterial>;
  /** action.name shown on the offer info route, when set. */
  action_name: null | string;
  /** action.consumer_action shown on the offer info route, when set. */
  consumer_action: null | string;
}
/** Geographic part of a rule: FULL catalog location ids. */
export interface OfferGeoTargeting {
  /** Location ids whose area (itself or any descendant) the rule includes. */
  include: Array<string>;
  /** Location ids whose area the rule excludes; exclude wins over include. */
  exclude: Array<string>;
}
/** One partner-authored targeting rule. */
export interface OfferTargetingRule {
  /** geo.include and geo.exclude of the rule. */
  geo: OfferGeoTargeting;
}
/** What the service needs to work with the partner, never shown to developers. */
export interface OfferInternals {
  /** Real-time fetch endpoint of a remote offer. */
  remote_endpoint: null | string;
  /** Credentials for the partner's endpoints, by name. */
  credentials: Record<string, string>;
  /** Settlement contract reference or terms. */
  settlement_contract: null | string;
  /** Ranking hints, by name. */
  recommendation_context: Record<string, string>;
}
/** An offer's whole state was set (created or replaced); the latest event of an offer is its state. Carries internal fields that public read models never receive. */
export interface OfferUpserted {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** Canonical lowercase UUID of the offer; the partition key. */
  offer_id: string;
  /** The supply partner that provides the offer and authors its targeting. */
  partner_id: string;
  /** The partner's own id of the offer, when it has one; never a canonical offer id. */
  upstream_offer_id: null | string;
  /** local: details stored with the offer; remote: real-time remote offer whose public content comes from snapshots. */
  kind: OfferKind;
  /** Lifecycle status, offer_info.status; only active is servable. */
  status: OfferStatus;
  /** Deleted offers are never shown. */
  deleted: boolean;
  /** Delisted offers are withdrawn from public reads. */
  delisted: boolean;
  /** Test-only offers are never returned as public content. */
  test_only: boolean;
  /** Public details of a local offer; null when none are stored (always null for remote offers, whose content is in snapshots). */
  details: null | OfferDetails;
  /** Offer-side targeting, at most 10 rules, every id checked against the current FULL release when written. Internal: never in a public read model. */
  targeting: Array<OfferTargetingRule>;
  /** Internal credentials, settlement contract and recommendation context; only the internal read model receives them. */
  internal: null | OfferInternals;
  /** When this state was set, UTC epoch milliseconds. */
  updated_at: number;
  /** Where a click on a served card goes (an absolute URL or an app deep link), frozen into each serve; null: cards of this offer get no tracked link. Added in version 2 of this schema; events written before it read as null. */
  destination_url: null | string;
}
/** A snapshot of a real-time remote offer's public content was published or replaced (same snapshot_id), e.g. to deactivate it. */
export interface RemoteSnapshotPublished {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** Canonical offer id of the remote offer; the partition key. */
  offer_id: string;
  /** Canonical lowercase UUID of the snapshot; a later event with the same id replaces it. */
  snapshot_id: string;
  /** BCP 47 language tag of the content (e.g. en, pt-BR); null when unknown. */
  language: null | string;
  /** Whether the snapshot may be shown; inactive snapshots are never selected. */
  active: boolean;
  /** When the partner last updated this content, UTC epoch milliseconds; orders snapshots for selection. */
  updated_at: number;
  /** The public details document as JSON text (offer_info, entity, goals, material, action), stored verbatim; readers validate it. */
  content: string;
  /** When the service recorded the snapshot, UTC epoch milliseconds. */
  published_at: number;
}
export type TrackedLinkShape = 'short_code' | 'instance_uuid' | 'static_path';
/** A tracked link on the link origin was mapped to its offer. A link's mapping never changes once registered. */
export interface TrackedLinkRegistered {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** Canonical id of the offer the link opens; the partition key. */
  offer_id: string;
  /** short_code: /{8 alphanumerics}; instance_uuid: /{canonical root instance UUID}; static_path: /static/st_{token}. */
  shape: TrackedLinkShape;
  /** The identifying path segment: the 8-character code, the lowercase UUID, or the st_ token of a static path. */
  code: string;
  /** The served card the link belongs to, when one exists (always for instance_uuid links). */
  offer_instance_id: null | string;
  /** The application the link was issued to, when known. */
  application_id: null | string;
  /** Absolute destination the link redirects to, when fixed at registration. */
  target_url: null | string;
  /** When the link was registered, UTC epoch milliseconds. */
  registered_at: number;
}
/** One reported event name and the offer goal it counts as. */
export interface PartnerGoalMapping {
  /** The event_name a postback of this partner carries. */
  event_name: string;
  /** The goals[].event of the partner's offers it maps to. */
  goal_event: string;
}
/** A supply-side partner's whole configuration was set; the latest event of a partner is its state. */
export interface PartnerConfigured {
  /** UUIDv7 minted by the writer; idempotency key of this event. */
  event_id: string;
  /** Canonical lowercase UUID of the partner; the partition key and the {partner_id} of its postback route. */
  partner_id: string;
  /** Display name of the partner. */
  name: string;
  /** Whether the partner's postback route accepts requests. */
  enabled: boolean;
  /** IPv4 and IPv6 networks in CIDR notation, without host bits, from which postbacks are accepted; empty accepts none. */
  source_ip_allowlist: Array<string>;
  /** Mapping from postback event_name to offer goal, one entry per event_name; an unmapped name makes a postback unmapped. */
  goal_mappings: Array<PartnerGoalMapping>;
  /** When the configuration was set, UTC epoch milliseconds. */
  configured_at: number;
}
export type PostbackIdentityKind = 'event_id' | 'order_id' | 'partner_txn_id';
export type PostbackChannel = 'current' | 'compat_get' | 'compat_form';
export type PostbackMatchedBy = 'svc_click_id' | 'svc_tracking_id' | 'offer_instance_id';
export type PostbackEnvironment = 'live' | 'test' | 'sandbox';
/** A partner's conversion report passed the intake checks (payload, partner, source address, attribution) and was logged. It carries everything the ledger needs to decide (resolved attribution, goal, payout), so replaying the topic decides the same without reading other read models. */
export interface PostbackReceived {
  /** UUIDv7 minted by the intake for this request; answered to the partner and the idempotency key of this event. */
  correlation_id: string;
  /** Canonical lowercase UUID of the reporting partner ({partner_id} of the route). */
  partner_id: string;
  /** The first present of event_id, (event_name, order_id), partner_txn_id. */
  identity_kind: PostbackIdentityKind;
  /** The identity's canonical text within the partner (JSON array of its parts); the partition key is partner_id + this. */
  identity_key: string;
  /** sha256 (hex) of the canonical payload: same identity and same fingerprint is a duplicate, a different fingerprint a conflict. */
  fingerprint: string;
  /** current: POST JSON with SVC-Protocol-Version 1.0; compat_get / compat_form: the compatibility routes. */
  channel: PostbackChannel;
  /** The caller's address the allowlist was checked against (socket address, or the client address given by a trusted proxy). */
  source_ip: string;
  /** When the intake accepted the request, UTC epoch milliseconds. */
  received_at: number;
  /** The partner's event name, as reported. */
  event_name: string;
  /** Reported event_id. */
  event_id: null | string;
  /** Reported order_id. */
  order_id: null | string;
  /** Reported partner_txn_id. */
  partner_txn_id: null | string;
  /** Reported amount, exact decimal string in canonical form (no trailing zeros). */
  amount: null | string;
  /** Reported ISO 4217 currency, with amount. */
  currency: null | string;
  /** svc_click_id as reported. */
  reported_click_id: null | string;
  /** svc_tracking_id as reported. */
  reported_tracking_id: null | string;
  /** offer_instance_id as reported. */
  reported_instance_id: null | string;
  /** The first of svc_click_id, svc_tracking_id, offer_instance_id that was reported; all reported ones resolved to the same card. */
  matched_by: PostbackMatchedBy;
  /** The offer the conversion is attributed to (always the partner's own). */
  offer_id: string;
  /** The served card, when the attribution has one (a static link may not). */
  offer_instance_id: null | string;
  /** The click, when attributed through one. */
  svc_click_id: null | string;
  /** The application that served the card, when known. */
  application_id: null | string;
  /** live conversions are billable; test and sandbox ones are recorded apart. */
  environment: PostbackEnvironment;
  /** The offer goal the event_name maps to; null makes the postback unmapped (logged, not counted). */
  goal_event: null | string;
  /** Payout of the goal, exact decimal string; null when unmapped. */
  payout_amount: null | string;
  /** ISO 4217 currency of the payout; null when unmapped. */
  payout_currency: null | string;
}
export type ServeEnvironment = 'live' | 'test' | 'sandbox';
/** One card was served to an application by the Query route: one serving of one offer, identified by its offer_instance_id. */
export interface OfferServed {
  /** Canonical lowercase UUIDv7 minted for this serving; the partition key and the event's identity. */
  offer_instance_id: string;
  /** The application whose credential (or the default application, when anonymous) served the card; the card belongs to it. */
  application_id: string;
  /** The placement the card was served through; null for serves without one (legacy or static offer-wall serves). */
  placement_id: null | string;
  /** Canonical id of the served offer. */
  offer_id: string;
  /** When the card was served, UTC epoch milliseconds truncated to the second. */
  served_at: number;
  /** live: a Live API Key; test: a Test Key with X-SVC-Test: true; sandbox: the shared public sandbox key. Only live cards are found by the instance route. */
  environment: ServeEnvironment;
  /** True when the Query carried no placement_id (without a key, or with a Live or Test key) and was served anonymously through the default placement to the default application; false for a placement's serve and for the shared sandbox key. */
  anonymous: boolean;
  /** The caller's location resolved from trusted provider region headers (a registry id), or null when none was given or trusted. */
  location_id: null | string;
  /** The minted 8-character code of the card's tracked short link; null when the card has no link. */
  link_code: null | string;
  /** The tracked short link as served ({link_base}/{link_code}); the card's action.payload.url. */
  link_url: null | string;
  /** The offer's destination frozen at serve time: where a click on the link is redirected. */
  destination_url: null | string;
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
  LinkClicked: 'offerledger.clicks.LinkClicked',
  OfferUpserted: 'offerledger.offers.OfferUpserted',
  RemoteSnapshotPublished: 'offerledger.offers.RemoteSnapshotPublished',
  TrackedLinkRegistered: 'offerledger.offers.TrackedLinkRegistered',
  PartnerConfigured: 'offerledger.partners.PartnerConfigured',
  PostbackReceived: 'offerledger.postbacks.PostbackReceived',
  OfferServed: 'offerledger.serves.OfferServed',
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
  'offerledger.clicks.LinkClicked': LinkClicked;
  'offerledger.offers.OfferUpserted': OfferUpserted;
  'offerledger.offers.RemoteSnapshotPublished': RemoteSnapshotPublished;
  'offerledger.offers.TrackedLinkRegistered': TrackedLinkRegistered;
  'offerledger.partners.PartnerConfigured': PartnerConfigured;
  'offerledger.postbacks.PostbackReceived': PostbackReceived;
  'offerledger.serves.OfferServed': OfferServed;
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
  'offerledger.clicks.LinkClicked': 'clicks',
  'offerledger.offers.OfferUpserted': 'offers',
  'offerledger.offers.RemoteSnapshotPublished': 'offers',
  'offerledger.offers.TrackedLinkRegistered': 'offers',
  'offerledger.partners.PartnerConfigured': 'partners',
  'offerledger.postbacks.PostbackReceived': 'postbacks',
  'offerledger.serves.OfferServed': 'serves',
} as const;

export type EventTypeName = keyof EventValues;
