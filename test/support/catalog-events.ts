import { v7 as uuidv7 } from 'uuid';
import type { NewEvent } from '../../platform/events/event-log.js';
import { EventType, type CatalogEntryRecorded, type CatalogEntryRemoved } from '../../schemas/generated/events.js';

/**
 * A deterministic mix of diagnostic events: `count` events over `entries` entries, every fifth
 * one a removal. Amounts are exact decimal strings whose sum is known.
 */
export function catalogEvents(count: number, entries = Math.max(1, Math.floor(count / 4))): NewEvent[] {
  const events: NewEvent[] = [];
  const epoch = Date.UTC(2026, 10, 22);
  for (let index = 0; index < count; index += 1) {
    const entryId = `entry-${index % entries}`;
    if (index % 5 === 4) {
      const value: CatalogEntryRemoved = {
        event_id: uuidv7(),
        entry_id: entryId,
        reason: index % 10 === 4 ? null : `reason ${index}`,
        removed_at: epoch + index,
      };
      events.push({ key: entryId, type: EventType.CatalogEntryRemoved, value: { ...value } });
    } else {
      const value: CatalogEntryRecorded = {
        event_id: uuidv7(),
        entry_id: entryId,
        name: `Entry ${index} — ünïcode`,
        amount: `${index}.${String(index % 100).padStart(2, '0')}`,
        currency: index % 2 === 0 ? 'USD' : 'EUR',
        tags: index % 3 === 0 ? [] : [`t${index % 7}`, 'x'],
        recorded_at: epoch + index,
      };
      events.push({ key: entryId, type: EventType.CatalogEntryRecorded, value: { ...value } });
    }
  }
  return events;
}

/** What the tallies must add up to when each event was applied exactly once. */
export function expectedTotals(events: NewEvent[]) {
  let cents = 0n;
  for (const event of events) {
    if (event.type === EventType.CatalogEntryRecorded) {
      const [whole, fraction = '0'] = String(event.value.amount).split('.');
      cents += BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
    }
  }
  const amount = `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
  // An entry that only ever saw removals has no row.
  const recordedEntries = new Set(events.filter((e) => e.type === EventType.CatalogEntryRecorded).map((e) => e.key));
  return { events: events.length, amount, entries: recordedEntries.size };
}
