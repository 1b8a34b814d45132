import type { Sql } from '../../platform/db/db.js';
import type { Projection } from '../../platform/projection/projection.js';
import { evolvePartners, type PartnerRow } from './evolve.js';

async function writePartners(tx: Sql, rows: PartnerRow[]) {
  await tx.query(
    `INSERT INTO partners (partner_id, name, enabled, configured_at, last_event_id)
     SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::timestamptz[], $5::text[])
     ON CONFLICT (partner_id) DO UPDATE SET
       name = EXCLUDED.name, enabled = EXCLUDED.enabled, configured_at = EXCLUDED.configured_at,
       last_event_id = EXCLUDED.last_event_id`,
    [
      rows.map((r) => r.partner_id),
      rows.map((r) => r.name),
      rows.map((r) => r.enabled),
      rows.map((r) => r.configured_at.toISOString()),
      rows.map((r) => r.last_event_id),
    ],
  );
}

/** Child rows are replaced as a whole: the event is the partner's full state. */
async function replaceChildren(tx: Sql, rows: PartnerRow[]) {
  const ids = rows.map((r) => r.partner_id);
  await tx.query('DELETE FROM partner_source_networks WHERE partner_id = ANY($1::text[])', [ids]);
  await tx.query('DELETE FROM partner_goal_mappings WHERE partner_id = ANY($1::text[])', [ids]);
  const networks = rows.flatMap((r) => r.networks.map((network) => [r.partner_id, network] as const));
  if (networks.length > 0) {
    await tx.query(
      `INSERT INTO partner_source_networks (partner_id, network)
       SELECT partner_id, network::cidr FROM unnest($1::text[], $2::text[]) AS batch(partner_id, network)
       -- Two spellings of one network in an event logged before the command wrote them canonically.
       ON CONFLICT DO NOTHING`,
      [networks.map((n) => n[0]), networks.map((n) => n[1])],
    );
  }
  const mappings = rows.flatMap((r) => r.goal_mappings.map((m) => ({ partner_id: r.partner_id, ...m })));
  if (mappings.length > 0) {
    await tx.query(
      `INSERT INTO partner_goal_mappings (partner_id, event_name, goal_event)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[])`,
      [mappings.map((m) => m.partner_id), mappings.map((m) => m.event_name), mappings.map((m) => m.goal_event)],
    );
  }
}

export const partnersProjection: Projection = {
  name: 'partners',
  topics: ['partners'],
  tables: ['partner_goal_mappings', 'partner_source_networks', 'partners'],
  async apply(tx, events) {
    const rows = [...evolvePartners(events).values()];
    if (rows.length === 0) return;
    await writePartners(tx, rows);
    await replaceChildren(tx, rows);
  },
};
