import type { Sql } from '../../platform/db/db.js';

export interface Partner {
  partner_id: string;
  name: string;
  enabled: boolean;
  configured_at: Date;
  /** CIDRs as Postgres prints them (canonical form). */
  source_ip_allowlist: string[];
  /** event_name → goals[].event. */
  goal_mappings: Record<string, string>;
}

/** The current configuration of one partner, or undefined when it was never configured. */
export async function findPartner(sql: Sql, partnerId: string): Promise<Partner | undefined> {
  const { rows } = await sql.query<Partner>(
    `SELECT p.partner_id, p.name, p.enabled, p.configured_at,
       coalesce((SELECT array_agg(n.network::text ORDER BY n.network) FROM partner_source_networks n WHERE n.partner_id = p.partner_id), '{}') AS source_ip_allowlist,
       coalesce((SELECT jsonb_object_agg(m.event_name, m.goal_event) FROM partner_goal_mappings m WHERE m.partner_id = p.partner_id), '{}') AS goal_mappings
     FROM partners p WHERE p.partner_id = $1`,
    [partnerId],
  );
  return rows[0];
}
