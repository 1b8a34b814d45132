import type { LoggedEvent } from '../../platform/events/event-log.js';
import { EventType, type PartnerConfigured } from '../../schemas/generated/events.js';

export interface PartnerRow {
  partner_id: string;
  name: string;
  enabled: boolean;
  configured_at: Date;
  last_event_id: string;
  networks: string[];
  goal_mappings: { event_name: string; goal_event: string }[];
}

/**
 * Folds a batch into the final configuration per partner: each event carries the whole state,
 * so the last one of a partner wins and earlier ones in the batch are never written.
 */
export function evolvePartners(events: LoggedEvent[]): Map<string, PartnerRow> {
  const partners = new Map<string, PartnerRow>();
  for (const event of events) {
    if (event.type !== EventType.PartnerConfigured) continue;
    const value = event.value as unknown as PartnerConfigured;
    partners.set(value.partner_id, {
      partner_id: value.partner_id,
      name: value.name,
      enabled: value.enabled,
      configured_at: new Date(value.configured_at),
      last_event_id: value.event_id,
      // A repeated network or event name in a hand-written event must not break the primary key.
      networks: [...new Set(value.source_ip_allowlist)],
      goal_mappings: [...new Map(value.goal_mappings.map((m) => [m.event_name, { event_name: m.event_name, goal_event: m.goal_event }])).values()],
    });
  }
  return partners;
}
