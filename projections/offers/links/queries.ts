import type { Sql } from '../../../platform/db/db.js';
import type { TrackedLinkRef, TrackedLinkShape } from './parse-link.js';

export interface TrackedLinkMapping {
  shape: TrackedLinkShape;
  code: string;
  offer_id: string;
  offer_instance_id: string | null;
  application_id: string | null;
}

/** The mapping of a code whatever its shape (a code is registered once), or undefined. */
export async function findTrackedLinkByCode(sql: Sql, code: string): Promise<TrackedLinkMapping | undefined> {
  const { rows } = await sql.query<TrackedLinkMapping>(
    'SELECT shape, code, offer_id, offer_instance_id, application_id FROM tracked_links WHERE code = $1',
    [code],
  );
  return rows[0];
}

/** A link's mapping with the destination it was registered with (null: none), for the link origin. */
export async function findTrackedLinkTarget(sql: Sql, link: TrackedLinkRef): Promise<(TrackedLinkMapping & { target_url: string | null }) | undefined> {
  const { rows } = await sql.query<TrackedLinkMapping & { target_url: string | null }>(
    'SELECT shape, code, offer_id, offer_instance_id, application_id, target_url FROM tracked_links WHERE code = $1 AND shape = $2',
    [link.code, link.shape],
  );
  return rows[0];
}

/** Which of `codes` are registered links (any shape): minted serve codes must not take them. */
export async function registeredLinkCodes(sql: Sql, codes: string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const { rows } = await sql.query<{ code: string }>('SELECT code FROM tracked_links WHERE code = ANY($1::text[])', [codes]);
  return rows.map((row) => row.code);
}
