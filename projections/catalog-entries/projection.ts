import type { Sql } from '../../platform/db/db.js';
import type { Projection } from '../../platform/projection/projection.js';
import { evolve } from './evolve.js';

async function writeEntries(tx: Sql, rows: ReturnType<typeof evolve>['entries']) {
  if (rows.size === 0) return;
  const list = [...rows.values()];
  await tx.query(
    `INSERT INTO catalog_entries (entry_id, name, amount, currency, tags, recorded_at, removed, removal_reason, last_event_id)
     SELECT entry_id, name, amount, currency, tags::jsonb, recorded_at, removed, removal_reason, last_event_id
     FROM unnest($1::text[], $2::text[], $3::numeric[], $4::text[], $5::text[], $6::timestamptz[], $7::boolean[], $8::text[], $9::text[])
       AS batch(entry_id, name, amount, currency, tags, recorded_at, removed, removal_reason, last_event_id)
     ON CONFLICT (entry_id) DO UPDATE SET
       name = EXCLUDED.name, amount = EXCLUDED.amount, currency = EXCLUDED.currency, tags = EXCLUDED.tags,
       recorded_at = EXCLUDED.recorded_at, removed = EXCLUDED.removed, removal_reason = EXCLUDED.removal_reason,
       last_event_id = EXCLUDED.last_event_id`,
    [
      list.map((r) => r.entry_id),
      list.map((r) => r.name),
      list.map((r) => r.amount),
      list.map((r) => r.currency),
      list.map((r) => JSON.stringify(r.tags)),
      list.map((r) => r.recorded_at.toISOString()),
      list.map((r) => r.removed),
      list.map((r) => r.removal_reason),
      list.map((r) => r.last_event_id),
    ],
  );
}

async function writeRemovals(tx: Sql, removals: ReturnType<typeof evolve>['removals']) {
  if (removals.size === 0) return;
  const ids = [...removals.keys()];
  await tx.query(
    `UPDATE catalog_entries AS entry SET removed = true, removal_reason = batch.reason, last_event_id = batch.event_id
     FROM unnest($1::text[], $2::text[], $3::text[]) AS batch(entry_id, reason, event_id)
     WHERE entry.entry_id = batch.entry_id`,
    [ids, ids.map((id) => removals.get(id)!.reason), ids.map((id) => removals.get(id)!.event_id)],
  );
}

async function writeTallies(tx: Sql, tallies: ReturnType<typeof evolve>['tallies']) {
  if (tallies.length === 0) return;
  await tx.query(
    `INSERT INTO catalog_entry_tallies (entry_id, applied_events, amount_total)
     SELECT entry_id, count(*), sum(amount) FROM unnest($1::text[], $2::numeric[]) AS batch(entry_id, amount)
     GROUP BY entry_id
     ON CONFLICT (entry_id) DO UPDATE SET
       applied_events = catalog_entry_tallies.applied_events + EXCLUDED.applied_events,
       amount_total = catalog_entry_tallies.amount_total + EXCLUDED.amount_total`,
    [tallies.map((t) => t.entry_id), tallies.map((t) => t.amount)],
  );
}

export const catalogEntriesProjection: Projection = {
  name: 'catalog-entries',
  topics: ['catalog'],
  tables: ['catalog_entries', 'catalog_entry_tallies'],
  async apply(tx, events) {
    const changes = evolve(events);
    await writeEntries(tx, changes.entries);
    await writeRemovals(tx, changes.removals);
    await writeTallies(tx, changes.tallies);
  },
};
