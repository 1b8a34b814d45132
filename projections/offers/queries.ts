import type { Sql } from '../../platform/db/db.js';
import type { OfferDetailsDocument } from '../../schemas/documents/offer.js';
import type { OfferKind, OfferPricingModel, OfferStatus } from '../../schemas/generated/events.js';
import { readSnapshotContent } from './details.js';

/** An offer's stored public state; `details` in the shape of the offer document, null when none. */
export interface StoredOffer {
  offer_id: string;
  partner_id: string;
  kind: OfferKind;
  status: OfferStatus;
  deleted: boolean;
  delisted: boolean;
  test_only: boolean;
  updated_at: Date;
  details: OfferDetailsDocument | null;
}

/** The offers row with its goals (JSON), as findOffer and the serving candidates read it. */
export interface OfferQueryRow extends Omit<StoredOffer, 'details'> {
  has_details: boolean;
  title: string;
  category_id: string;
  description: string;
  entity_id: string;
  entity_name: string;
  entity_type: string;
  action_name: string | null;
  consumer_action: string | null;
  material: { format: string; url: string; tag: string }[];
  goals: { event: string; model: OfferPricingModel; amount: string | null; currency: string | null; rate: string | null }[];
}

/** The stored detail columns of a row with details, in the offer document shape. */
export function toDocument(row: OfferQueryRow): OfferDetailsDocument {
  const action = {
    ...(row.action_name !== null ? { name: row.action_name } : {}),
    ...(row.consumer_action !== null ? { consumer_action: row.consumer_action } : {}),
  };
  return {
    offer_info: { title: row.title, category: { id: row.category_id }, description: row.description },
    entity: { id: row.entity_id, name: row.entity_name, type: row.entity_type },
    goals: row.goals.map((goal) => ({
      event: goal.event,
      pricing:
        goal.model === 'cpa'
          ? { model: 'cpa' as const, amount: goal.amount!, currency: goal.currency! }
          : { model: 'cps' as const, rate: goal.rate! },
    })),
    ...(row.material.length > 0 ? { material: row.material } : {}),
    ...(Object.keys(action).length > 0 ? { action } : {}),
  };
}

/** The columns of an offer row (its goals aggregated), for every query of offers in this module. */
export const OFFER_COLUMNS = `o.offer_id, o.partner_id, o.kind, o.status, o.deleted, o.delisted, o.test_only, o.updated_at, o.has_details,
       o.title, o.category_id, o.description, o.entity_id, o.entity_name, o.entity_type, o.action_name, o.consumer_action,
       o.material,
       coalesce((SELECT jsonb_agg(jsonb_build_object('event', g.event, 'model', g.model, 'amount', g.amount::text,
                  'currency', g.currency, 'rate', g.rate::text) ORDER BY g.position)
                 FROM offer_goals g WHERE g.offer_id = o.offer_id), '[]') AS goals`;

function toStoredOffer(row: OfferQueryRow): StoredOffer {
  const { offer_id, partner_id, kind, status, deleted, delisted, test_only, updated_at } = row;
  return { offer_id, partner_id, kind, status, deleted, delisted, test_only, updated_at, details: row.has_details ? toDocument(row) : null };
}

/**
 * The stored public state of one offer, whatever its status and flags (callers decide what is
 * showable), or undefined when the offer is unknown. Amounts and rates come back as the exact
 * decimal strings they were written as.
 */
export async function findOffer(sql: Sql, offerId: string): Promise<StoredOffer | undefined> {
  const { rows } = await sql.query<OfferQueryRow>(`SELECT ${OFFER_COLUMNS} FROM offers o WHERE o.offer_id = $1`, [offerId]);
  return rows[0] && toStoredOffer(rows[0]);
}

/** findOffer for many offers in one statement: the known ones by id; unknown ids are absent. */
export async function findOffers(sql: Sql, offerIds: readonly string[]): Promise<Map<string, StoredOffer>> {
  if (offerIds.length === 0) return new Map();
  const { rows } = await sql.query<OfferQueryRow>(`SELECT ${OFFER_COLUMNS} FROM offers o WHERE o.offer_id = ANY($1::text[])`, [offerIds]);
  return new Map(rows.map((row) => [row.offer_id, toStoredOffer(row)]));
}

export interface StoredSnapshot {
  snapshot_id: string;
  offer_id: string;
  language: string | null;
  updated_at: Date;
  /** Verbatim JSON text; read it with readSnapshotContent (details.ts). */
  content: string;
}

/** Order of a remote offer's active snapshots, preferred first (see selectRemoteSnapshot); Query uses it too. */
export const SNAPSHOT_PREFERENCE = "(lower(language) = 'en' OR lower(language) LIKE 'en-%') IS TRUE DESC, updated_at DESC, snapshot_id";

/**
 * The snapshot a remote offer's public content comes from: among its active snapshots, an
 * English one (language `en` or `en-*`, any case) first, otherwise any; within that, the most
 * recently updated; ties broken by snapshot_id ascending so the choice is stable. Undefined when
 * the offer has no active snapshot.
 */
export async function selectRemoteSnapshot(sql: Sql, offerId: string): Promise<StoredSnapshot | undefined> {
  const { rows } = await sql.query<StoredSnapshot>(
    `SELECT snapshot_id, offer_id, language, updated_at, content
     FROM offer_snapshots
     WHERE offer_id = $1 AND active
     ORDER BY ${SNAPSHOT_PREFERENCE}
     LIMIT 1`,
    [offerId],
  );
  return rows[0];
}

/**
 * The goals of a remote offer's public content: those of the snapshot offer info shows (see
 * selectRemoteSnapshot); none without an active snapshot, or when its content cannot be read.
 */
export async function remoteOfferGoals(sql: Sql, offerId: string): Promise<OfferDetailsDocument['goals']> {
  const snapshot = await selectRemoteSnapshot(sql, offerId);
  const content = snapshot && readSnapshotContent(snapshot.content);
  return content?.ok ? content.details.goals : [];
}

/** The offer a snapshot belongs to, or undefined for an unknown snapshot (a snapshot never moves). */
export async function snapshotOwner(sql: Sql, snapshotId: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ offer_id: string }>('SELECT offer_id FROM offer_snapshots WHERE snapshot_id = $1', [snapshotId]);
  return rows[0]?.offer_id;
}
