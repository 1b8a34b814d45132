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
