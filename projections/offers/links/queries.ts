import type { Sql } from '../../../platform/db/db.js';
import { parseTrackedLink, type ParsedLink, type TrackedLinkRef, type TrackedLinkShape } from './parse-link.js';

export interface TrackedLinkMapping {
  shape: TrackedLinkShape;
  code: string;
  offer_id: string;
  offer_instance_id: string | null;
  application_id: string | null;
}

/** The mapping of one link, or undefined when it was never registered (or has another shape). */
export async function findTrackedLink(sql: Sql, link: TrackedLinkRef): Promise<TrackedLinkMapping | undefined> {
  const { rows } = await sql.query<TrackedLinkMapping>(
    'SELECT shape, code, offer_id, offer_instance_id, application_id FROM tracked_links WHERE code = $1 AND shape = $2',
    [link.code, link.shape],
  );
  return rows[0];
}

/** The mapping of a code whatever its shape (a code is registered once), or undefined. */
export async function findTrackedLinkByCode(sql: Sql, code: string): Promise<TrackedLinkMapping | undefined> {
  const { rows } = await sql.query<TrackedLinkMapping>(
    'SELECT shape, code, offer_id, offer_instance_id, application_id FROM tracked_links WHERE code = $1',
    [code],
  );
  return rows[0];
}

export type LinkLookup =
  | { status: 'found'; mapping: TrackedLinkMapping }
  | { status: 'not_found'; link: TrackedLinkRef }
  | { status: 'invalid'; reason: Extract<ParsedLink, { ok: false }>['reason'] };

/**
 * What the offer info route needs for `offerurl`: `invalid` (400: not a tracked link of this
 * origin, or an unsupported path), `not_found` (404: no mapping) or the mapping.
 */
export async function lookupTrackedLinkUrl(sql: Sql, submitted: string, linkBase: string): Promise<LinkLookup> {
  const parsed = parseTrackedLink(submitted, linkBase);
  if (!parsed.ok) return { status: 'invalid', reason: parsed.reason };
  const mapping = await findTrackedLink(sql, parsed.link);
  return mapping ? { status: 'found', mapping } : { status: 'not_found', link: parsed.link };
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
