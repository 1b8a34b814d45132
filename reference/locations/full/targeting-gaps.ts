import type { Sql } from '../../../platform/db/db.js';
import { targetedLocations } from '../../../projections/offers/internal/queries.js';
import { currentRelease, existingLocationIds } from './queries.js';

/**
 * What a newly loaded release leaves out of the offers' targeting: the location ids that
 * undeleted offers target and the current release does not hold (a rule naming one can no longer
 * match there, nor explain-targeting explain it), with the number of offers naming each.
 */
export async function targetingOutsideRelease(sql: Sql): Promise<{ location_id: string; offers: number }[]> {
  const release = await currentRelease(sql);
  const targeted = await targetedLocations(sql);
  if (!release || targeted.length === 0) return [];
  const known = await existingLocationIds(sql, release.releaseId, targeted.map((row) => row.location_id));
  return targeted.filter((row) => !known.has(row.location_id));
}
