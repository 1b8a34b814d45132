import { isIP } from 'node:net';
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

/**
 * Whether a postback from `address` is allowed for the partner: the partner exists, is enabled
 * and one of its networks contains the address. A malformed address is simply not allowed.
 */
export async function partnerAcceptsSource(sql: Sql, partnerId: string, address: string): Promise<boolean> {
  // Checked here, not by the cast: a failed cast would abort a caller's transaction.
  if (isIP(address) === 0) return false;
  const { rows } = await sql.query<{ allowed: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM partners p JOIN partner_source_networks n ON n.partner_id = p.partner_id
       WHERE p.partner_id = $1 AND p.enabled AND $2::inet <<= n.network
     ) AS allowed`,
    [partnerId, address],
  );
  return rows[0]!.allowed;
}

/** The goal a partner's event_name maps to, or undefined (the postback is then unmapped). */
export async function goalForEvent(sql: Sql, partnerId: string, eventName: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ goal_event: string }>(
    'SELECT goal_event FROM partner_goal_mappings WHERE partner_id = $1 AND event_name = $2',
    [partnerId, eventName],
  );
  return rows[0]?.goal_event;
}
