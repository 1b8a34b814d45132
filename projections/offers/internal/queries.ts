import type { Sql } from '../../../platform/db/db.js';
import type { OfferDetailsDocument } from '../../../schemas/documents/offer.js';
import type { OfferKind } from '../../../schemas/generated/events.js';
import { OFFER_COLUMNS, SNAPSHOT_PREFERENCE, toDocument, type OfferQueryRow } from '../queries.js';

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

/**
 * Everything serving needs about the offers it may serve, in two set queries (never one per
 * offer): public content, internal destination and targeting. Internal: no public route reads it.
 */
export interface ServingCandidateRow {
  offer_id: string;
  kind: OfferKind;
  test_only: boolean;
  destination_url: string | null;
  /** Local offers: their stored details. */
  details: OfferDetailsDocument | null;
  /** Remote offers: the preferred active snapshot (JSON text, unvalidated) and its language. */
  snapshot: { content: string; language: string | null } | null;
  /** Rules in order; empty when the offer has no targeting. */
  targeting: TargetingRule[];
}

interface CandidateQueryRow extends OfferQueryRow {
  destination_url: string | null;
  snapshot_content: string | null;
  snapshot_language: string | null;
}

/**
 * Active, undeleted, non-delisted offers that have content to show: local offers with details,
 * remote offers with an active snapshot (the one the offer info route would select). Test-only
 * offers are included and flagged; the caller decides who may see them. An offer counts only
 * once both projections of the `offers` topic have applied its latest upsert (the same
 * last_event_id): they commit apart, and in between a new offer would be served before its
 * targeting and destination were there, an updated one by its former rules. Read both
 * statements in one snapshot.
 */
export async function servingCandidates(sql: Sql): Promise<ServingCandidateRow[]> {
  const { rows } = await sql.query<CandidateQueryRow>(
    `SELECT ${OFFER_COLUMNS},
       i.destination_url, s.content AS snapshot_content, s.language AS snapshot_language
     FROM offers o
     JOIN offer_internals i ON i.offer_id = o.offer_id AND i.last_event_id = o.last_event_id
     LEFT JOIN LATERAL (
       SELECT content, language FROM offer_snapshots
       WHERE offer_id = o.offer_id AND active AND o.kind = 'remote'
       ORDER BY ${SNAPSHOT_PREFERENCE} LIMIT 1
     ) s ON true
     WHERE o.status = 'active' AND NOT o.deleted AND NOT o.delisted
       AND ((o.kind = 'local' AND o.has_details) OR (o.kind = 'remote' AND s.content IS NOT NULL))
     ORDER BY o.offer_id`,
  );
  const { rows: rules } = await sql.query<TargetingRule & { offer_id: string }>(
    `SELECT t.offer_id, t.rule_index,
       coalesce(array_agg(t.location_id::text ORDER BY t.location_id) FILTER (WHERE t.mode = 'include'), '{}') AS include,
       coalesce(array_agg(t.location_id::text ORDER BY t.location_id) FILTER (WHERE t.mode = 'exclude'), '{}') AS exclude
     FROM offer_targeting t JOIN offers o ON o.offer_id = t.offer_id
     WHERE o.status = 'active' AND NOT o.deleted AND NOT o.delisted
     GROUP BY t.offer_id, t.rule_index ORDER BY t.offer_id, t.rule_index`,
  );
  const targeting = new Map<string, TargetingRule[]>();
  for (const { offer_id, ...rule } of rules) {
    const list = targeting.get(offer_id);
    if (list) list.push(rule);
    else targeting.set(offer_id, [rule]);
  }
  return rows.map((row) => ({
    offer_id: row.offer_id,
    kind: row.kind,
    test_only: row.test_only,
    destination_url: row.destination_url,
    details: row.kind === 'local' ? toDocument(row) : null,
    snapshot: row.snapshot_content === null ? null : { content: row.snapshot_content, language: row.snapshot_language },
    targeting: targeting.get(row.offer_id) ?? [],
  }));
}
