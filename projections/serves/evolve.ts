import type { LoggedEvent } from '../../platform/events/event-log.js';
import { EventType, type OfferServed } from '../../schemas/generated/events.js';

export interface ServedInstanceRow {
  offer_instance_id: string;
  application_id: string;
  placement_id: string | null;
  offer_id: string;
  served_at: Date;
  environment: OfferServed['environment'];
  anonymous: boolean;
  location_id: string | null;
  link_code: string | null;
  link_url: string | null;
  destination_url: string | null;
}

/** One row per served instance; the first event of an id wins (an id is minted once). Pure. */
export function evolveServedInstances(events: LoggedEvent[]): ServedInstanceRow[] {
  const rows = new Map<string, ServedInstanceRow>();
  for (const event of events) {
    if (event.type !== EventType.OfferServed) continue;
    const value = event.value as unknown as OfferServed;
    if (rows.has(value.offer_instance_id)) continue;
    rows.set(value.offer_instance_id, {
      offer_instance_id: value.offer_instance_id,
      application_id: value.application_id,
      placement_id: value.placement_id,
      offer_id: value.offer_id,
      served_at: new Date(value.served_at),
      environment: value.environment,
      anonymous: value.anonymous,
      location_id: value.location_id,
      link_code: value.link_code,
      link_url: value.link_url,
      destination_url: value.destination_url,
    });
  }
  return [...rows.values()];
}
