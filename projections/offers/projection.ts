import type { Sql } from '../../platform/db/db.js';
import type { Projection } from '../../platform/projection/projection.js';
import { evolveOffers, type LinkRow, type OfferRow, type SnapshotRow } from './evolve.js';

const column = <R, K extends keyof R>(rows: R[], key: K) => rows.map((row) => row[key]);
const iso = (dates: Date[]) => dates.map((date) => date.toISOString());

async function writeOffers(tx: Sql, rows: OfferRow[]) {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO offers (offer_id, partner_id, upstream_offer_id, kind, status, deleted, delisted, test_only, has_details,
       title, category_id, description, entity_id, entity_name, entity_type, action_name, consumer_action, material,
       updated_at, last_event_id)
     SELECT offer_id, partner_id, upstream_offer_id, kind, status, deleted, delisted, test_only, has_details,
       title, category_id, description, entity_id, entity_name, entity_type, action_name, consumer_action, material::jsonb,
       updated_at, last_event_id
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::boolean[], $8::boolean[],
       $9::boolean[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
       $18::text[], $19::timestamptz[], $20::text[])
       AS batch(offer_id, partner_id, upstream_offer_id, kind, status, deleted, delisted, test_only, has_details,
         title, category_id, description, entity_id, entity_name, entity_type, action_name, consumer_action, material,
         updated_at, last_event_id)
     ON CONFLICT (offer_id) DO UPDATE SET
       partner_id = EXCLUDED.partner_id, upstream_offer_id = EXCLUDED.upstream_offer_id, kind = EXCLUDED.kind,
       status = EXCLUDED.status, deleted = EXCLUDED.deleted, delisted = EXCLUDED.delisted, test_only = EXCLUDED.test_only,
       has_details = EXCLUDED.has_details, title = EXCLUDED.title, category_id = EXCLUDED.category_id,
       description = EXCLUDED.description, entity_id = EXCLUDED.entity_id, entity_name = EXCLUDED.entity_name,
       entity_type = EXCLUDED.entity_type, action_name = EXCLUDED.action_name, consumer_action = EXCLUDED.consumer_action,
       material = EXCLUDED.material, updated_at = EXCLUDED.updated_at, last_event_id = EXCLUDED.last_event_id`,
    [
      column(rows, 'offer_id'), column(rows, 'partner_id'), column(rows, 'upstream_offer_id'), column(rows, 'kind'),
      column(rows, 'status'), column(rows, 'deleted'), column(rows, 'delisted'), column(rows, 'test_only'),
      column(rows, 'has_details'), column(rows, 'title'), column(rows, 'category_id'), column(rows, 'description'),
      column(rows, 'entity_id'), column(rows, 'entity_name'), column(rows, 'entity_type'), column(rows, 'action_name'),
      column(rows, 'consumer_action'), rows.map((r) => JSON.stringify(r.material)), iso(column(rows, 'updated_at')),
      column(rows, 'last_event_id'),
    ],
  );
  // Goals are replaced as a whole: the event is the offer's full state.
  await tx.query('DELETE FROM offer_goals WHERE offer_id = ANY($1::text[])', [column(rows, 'offer_id')]);
  const goals = rows.flatMap((r) => r.goals.map((goal, position) => ({ offer_id: r.offer_id, position, ...goal })));
  if (goals.length === 0) return;
  await tx.query(
    `INSERT INTO offer_goals (offer_id, position, event, model, amount, currency, rate)
     SELECT * FROM unnest($1::text[], $2::smallint[], $3::text[], $4::text[], $5::numeric[], $6::text[], $7::numeric[])`,
    [
      column(goals, 'offer_id'), column(goals, 'position'), column(goals, 'event'), column(goals, 'model'),
      column(goals, 'amount'), column(goals, 'currency'), column(goals, 'rate'),
    ],
  );
}

async function writeSnapshots(tx: Sql, rows: SnapshotRow[]) {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO offer_snapshots (snapshot_id, offer_id, language, active, updated_at, content, published_at, last_event_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[], $5::timestamptz[], $6::text[], $7::timestamptz[], $8::text[])
     ON CONFLICT (snapshot_id) DO UPDATE SET
       language = EXCLUDED.language, active = EXCLUDED.active, updated_at = EXCLUDED.updated_at, content = EXCLUDED.content,
       published_at = EXCLUDED.published_at, last_event_id = EXCLUDED.last_event_id
     -- A snapshot id never moves to another offer.
     WHERE offer_snapshots.offer_id = EXCLUDED.offer_id`,
    [
      column(rows, 'snapshot_id'), column(rows, 'offer_id'), column(rows, 'language'), column(rows, 'active'),
      iso(column(rows, 'updated_at')), column(rows, 'content'), iso(column(rows, 'published_at')), column(rows, 'last_event_id'),
    ],
  );
}

async function writeLinks(tx: Sql, rows: LinkRow[]) {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO tracked_links (code, shape, offer_id, offer_instance_id, application_id, target_url, registered_at, event_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[])
     ON CONFLICT (code) DO NOTHING`,
    [
      column(rows, 'code'), column(rows, 'shape'), column(rows, 'offer_id'), column(rows, 'offer_instance_id'),
      column(rows, 'application_id'), column(rows, 'target_url'), iso(column(rows, 'registered_at')), column(rows, 'event_id'),
    ],
  );
}

/** Public read models of the `offers` topic: offers (+ goals), remote snapshots, tracked links. */
export const offersProjection: Projection = {
  name: 'offers',
  topics: ['offers'],
  tables: ['offer_goals', 'offers', 'offer_snapshots', 'tracked_links'],
  async apply(tx, events) {
    const changes = evolveOffers(events);
    await writeOffers(tx, [...changes.offers.values()]);
    await writeSnapshots(tx, [...changes.snapshots.values()]);
    await writeLinks(tx, [...changes.links.values()]);
  },
};
