import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { evolve } from '../../projections/catalog-entries/evolve.js';
import { EventType } from '../../schemas/generated/events.js';

let offset = 0;
const logged = (type: string, value: Record<string, unknown>): LoggedEvent => ({
  topic: 'catalog', partition: 0, offset: String(offset++), key: String(value.entry_id), type, value, schemaId: 1, timestamp: new Date(0),
});
const recorded = (entry: string, name: string, amount: string, id = `${entry}-${name}`) =>
  logged(EventType.CatalogEntryRecorded, { event_id: id, entry_id: entry, name, amount, currency: 'USD', tags: [], recorded_at: 0 });
const removed = (entry: string, id = `${entry}-removed`) =>
  logged(EventType.CatalogEntryRemoved, { event_id: id, entry_id: entry, reason: 'gone', removed_at: 0 });

describe('catalog entries evolve', () => {
  it('given two records of one entry, keeps the last one and tallies both', () => {
    const changes = evolve([recorded('a', 'first', '1.10'), recorded('a', 'second', '2.05')]);
    expect(changes.entries.get('a')).toMatchObject({ name: 'second', amount: '2.05', removed: false });
    expect(changes.tallies).toEqual([
      { entry_id: 'a', amount: '1.10' },
      { entry_id: 'a', amount: '2.05' },
    ]);
  });

  it('given a record then a removal in one batch, writes the entry as removed', () => {
    const changes = evolve([recorded('a', 'x', '1.00'), removed('a')]);
    expect(changes.entries.get('a')).toMatchObject({ removed: true, removal_reason: 'gone', last_event_id: 'a-removed' });
    expect(changes.removals.size).toBe(0);
  });

  it('given a removal of an entry recorded in an earlier batch, emits an update', () => {
    const changes = evolve([removed('b')]);
    expect(changes.entries.size).toBe(0);
    expect(changes.removals.get('b')).toEqual({ reason: 'gone', event_id: 'b-removed' });
  });

  it('given a removal then a new record, the entry is live again', () => {
    const changes = evolve([removed('c'), recorded('c', 'back', '3.00')]);
    expect(changes.removals.size).toBe(0);
    expect(changes.entries.get('c')).toMatchObject({ removed: false, name: 'back' });
  });

  it('ignores event types it does not project', () => {
    expect(evolve([logged('offerledger.other.SomethingHappened', { entry_id: 'z' })]).tallies).toEqual([]);
  });
});
