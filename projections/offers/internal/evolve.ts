import type { LoggedEvent } from '../../../platform/events/event-log.js';
import { EventType, type OfferUpserted } from '../../../schemas/generated/events.js';

export interface TargetingRow {
  offer_id: string;
  rule_index: number;
  mode: 'include' | 'exclude';
  location_id: string;
}

export interface InternalsRow {
  offer_id: string;
  remote_endpoint: string | null;
  credentials: Record<string, string>;
  settlement_contract: string | null;
  recommendation_context: Record<string, string>;
  destination_url: string | null;
  last_event_id: string;
}

export interface OfferInternalState {
  targeting: TargetingRow[];
  internals: InternalsRow;
}

/** Targeting ids are bigint in the table; the commands only write numeric ids of the catalog. */
const LOCATION_ID = /^[0-9]{1,18}$/;

/** Rules as rows, without repeats (an id listed twice in one rule is one row). */
function targetingRows(value: OfferUpserted): TargetingRow[] {
  const rows = new Map<string, TargetingRow>();
  value.targeting.forEach((rule, rule_index) => {
    for (const mode of ['include', 'exclude'] as const) {
      for (const location_id of rule.geo[mode]) {
        // An id that is not a number can match no location; skipping it keeps the projector running.
        if (!LOCATION_ID.test(location_id)) continue;
        rows.set(`${rule_index}/${mode}/${location_id}`, { offer_id: value.offer_id, rule_index, mode, location_id });
      }
    }
  });
  return [...rows.values()];
}

/** The final internal state per offer in a batch; each OfferUpserted carries the whole state. */
export function evolveOfferInternals(events: LoggedEvent[]): Map<string, OfferInternalState> {
  const offers = new Map<string, OfferInternalState>();
  for (const event of events) {
    if (event.type !== EventType.OfferUpserted) continue;
    const value = event.value as unknown as OfferUpserted;
    offers.set(value.offer_id, {
      targeting: targetingRows(value),
      internals: {
        offer_id: value.offer_id,
        remote_endpoint: value.internal?.remote_endpoint ?? null,
        credentials: { ...(value.internal?.credentials ?? {}) },
        settlement_contract: value.internal?.settlement_contract ?? null,
        recommendation_context: { ...(value.internal?.recommendation_context ?? {}) },
        destination_url: value.destination_url ?? null,
        last_event_id: value.event_id,
      },
    });
  }
  return offers;
}
