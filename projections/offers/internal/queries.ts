import type { Sql } from '../../../platform/db/db.js';

export interface TargetingRule {
  rule_index: number;
  include: string[];
  exclude: string[];
}

/** An offer's targeting rules in rule order, ids ascending; an empty array when it has none. */
export async function offerTargeting(sql: Sql, offerId: string): Promise<TargetingRule[]> {
  const { rows } = await sql.query<TargetingRule>(
    `SELECT rule_index,
       coalesce(array_agg(location_id::text ORDER BY location_id) FILTER (WHERE mode = 'include'), '{}') AS include,
       coalesce(array_agg(location_id::text ORDER BY location_id) FILTER (WHERE mode = 'exclude'), '{}') AS exclude
     FROM offer_targeting WHERE offer_id = $1 GROUP BY rule_index ORDER BY rule_index`,
    [offerId],
  );
  return rows;
}

/** Every location id some undeleted offer's targeting names, with how many such offers name it. */
export async function targetedLocations(sql: Sql): Promise<{ location_id: string; offers: number }[]> {
  const { rows } = await sql.query<{ location_id: string; offers: number }>(
    `SELECT t.location_id::text AS location_id, count(DISTINCT t.offer_id)::int AS offers
     FROM offer_targeting t JOIN offers o ON o.offer_id = t.offer_id AND NOT o.deleted
     GROUP BY t.location_id ORDER BY t.location_id`,
  );
  return rows;
}
