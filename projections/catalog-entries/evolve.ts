import type { LoggedEvent } from '../../platform/events/event-log.js';
import { EventType, type CatalogEntryRecorded, type CatalogEntryRemoved } from '../../schemas/generated/events.js';

export interface EntryRow {
  entry_id: string;
  name: string;
  amount: string;
  currency: string;
  tags: string[];
  recorded_at: Date;
  removed: boolean;
  removal_reason: string | null;
  last_event_id: string;
}

/** One applied event of an entry; summed per entry in SQL, where numeric addition is exact. */
export interface Tally {
  entry_id: string;
  amount: string;
}

export interface Changes {
  /** Final state per entry after the batch; a removal of an entry not seen in the batch has no row yet. */
  entries: Map<string, EntryRow>;
  removals: Map<string, { reason: string | null; event_id: string }>;
  tallies: Tally[];
}

/** Folds a batch into the final row per entry, so each table gets one set-based write. */
export function evolve(events: LoggedEvent[]): Changes {
  const changes: Changes = { entries: new Map(), removals: new Map(), tallies: [] };
  for (const event of events) {
    if (event.type === EventType.CatalogEntryRecorded) {
      const value = event.value as unknown as CatalogEntryRecorded;
      changes.removals.delete(value.entry_id);
      changes.entries.set(value.entry_id, {
        entry_id: value.entry_id,
        name: value.name,
        amount: value.amount,
        currency: value.currency,
        tags: value.tags,
        recorded_at: new Date(value.recorded_at),
        removed: false,
        removal_reason: null,
        last_event_id: value.event_id,
      });
      changes.tallies.push({ entry_id: value.entry_id, amount: value.amount });
    } else if (event.type === EventType.CatalogEntryRemoved) {
      const value = event.value as unknown as CatalogEntryRemoved;
      const known = changes.entries.get(value.entry_id);
      if (known) {
        known.removed = true;
        known.removal_reason = value.reason;
        known.last_event_id = value.event_id;
      } else {
        changes.removals.set(value.entry_id, { reason: value.reason, event_id: value.event_id });
      }
      changes.tallies.push({ entry_id: value.entry_id, amount: '0' });
    }
  }
  return changes;
}

