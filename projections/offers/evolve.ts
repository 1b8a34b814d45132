import type { LoggedEvent } from '../../platform/events/event-log.js';
import {
  EventType,
  type OfferGoal,
  type OfferMaterial,
  type OfferUpserted,
  type RemoteSnapshotPublished,
  type TrackedLinkRegistered,
} from '../../schemas/generated/events.js';

/** Public columns of `offers`; internal fields of the event are deliberately not copied. */
export interface OfferRow {
  offer_id: string;
  partner_id: string;
  upstream_offer_id: string | null;
  kind: string;
  status: string;
  deleted: boolean;
  delisted: boolean;
  test_only: boolean;
  has_details: boolean;
  title: string | null;
  category_id: string | null;
  description: string | null;
  entity_id: string | null;
  entity_name: string | null;
  entity_type: string | null;
  action_name: string | null;
  consumer_action: string | null;
  material: Pick<OfferMaterial, 'format' | 'url' | 'tag'>[];
  goals: Pick<OfferGoal, 'event' | 'model' | 'amount' | 'currency' | 'rate'>[];
  updated_at: Date;
  last_event_id: string;
}

export interface SnapshotRow {
  snapshot_id: string;
  offer_id: string;
  language: string | null;
  active: boolean;
  updated_at: Date;
  content: string;
  published_at: Date;
  last_event_id: string;
}

export interface LinkRow {
  code: string;
  shape: string;
  offer_id: string;
  offer_instance_id: string | null;
  application_id: string | null;
  target_url: string | null;
  registered_at: Date;
  event_id: string;
}

export interface OfferChanges {
  offers: Map<string, OfferRow>;
  snapshots: Map<string, SnapshotRow>;
  links: Map<string, LinkRow>;
}

function offerRow(value: OfferUpserted): OfferRow {
  const details = value.details;
  return {
    offer_id: value.offer_id,
    partner_id: value.partner_id,
    upstream_offer_id: value.upstream_offer_id,
    kind: value.kind,
    status: value.status,
    deleted: value.deleted,
    delisted: value.delisted,
    test_only: value.test_only,
    has_details: details !== null,
    title: details?.title ?? null,
    category_id: details?.category_id ?? null,
    description: details?.description ?? null,
    entity_id: details?.entity.id ?? null,
    entity_name: details?.entity.name ?? null,
    entity_type: details?.entity.type ?? null,
    action_name: details?.action_name ?? null,
    consumer_action: details?.consumer_action ?? null,
    material: (details?.material ?? []).map(({ format, url, tag }) => ({ format, url, tag })),
    goals: (details?.goals ?? []).map(({ event, model, amount, currency, rate }) => ({ event, model, amount, currency, rate })),
    updated_at: new Date(value.updated_at),
    last_event_id: value.event_id,
  };
}

/**
 * Folds a batch into one final row per offer and per snapshot (the last event wins: each carries
 * the whole state; a snapshot stays with its first offer) and the first registration per link
 * code (a link's mapping never changes).
 */
export function evolveOffers(events: LoggedEvent[]): OfferChanges {
  const changes: OfferChanges = { offers: new Map(), snapshots: new Map(), links: new Map() };
  for (const event of events) {
    if (event.type === EventType.OfferUpserted) {
      const value = event.value as unknown as OfferUpserted;
      changes.offers.set(value.offer_id, offerRow(value));
    } else if (event.type === EventType.RemoteSnapshotPublished) {
      const value = event.value as unknown as RemoteSnapshotPublished;
      // A snapshot id never moves to another offer: within a batch as the write guards it across
      // batches, or a replay folding more events at once would keep another row than the live projector.
      const earlier = changes.snapshots.get(value.snapshot_id);
      if (earlier && earlier.offer_id !== value.offer_id) continue;
      changes.snapshots.set(value.snapshot_id, {
        snapshot_id: value.snapshot_id,
        offer_id: value.offer_id,
        language: value.language,
        active: value.active,
        updated_at: new Date(value.updated_at),
        content: value.content,
        published_at: new Date(value.published_at),
        last_event_id: value.event_id,
      });
    } else if (event.type === EventType.TrackedLinkRegistered) {
      const value = event.value as unknown as TrackedLinkRegistered;
      if (changes.links.has(value.code)) continue;
      changes.links.set(value.code, {
        code: value.code,
        shape: value.shape,
        offer_id: value.offer_id,
        offer_instance_id: value.offer_instance_id,
        application_id: value.application_id,
        target_url: value.target_url,
        registered_at: new Date(value.registered_at),
        event_id: value.event_id,
      });
    }
  }
  return changes;
}
