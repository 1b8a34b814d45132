import type { Db } from '../../../../platform/db/db.js';
import { appliedPositionsKey } from '../../../../platform/projection/offsets.js';
import { readSnapshotContent } from '../../../../projections/offers/details.js';
import { servingCandidates, type ServingCandidateRow } from '../../../../projections/offers/internal/serving-candidates.js';
import { publicOffer } from '../../../../projections/offers/public-offer.js';
import type { OfferDetailsDocument } from '../../../../schemas/documents/offer.js';
import { comparePayout, type Candidate } from './query-ranking.js';

/**
 * The servable offers, held in memory per process and prepared in payout order. They are read
 * again whenever the offers projections have committed anything since (their applied positions,
 * one small read per request), so a paused offer or a new snapshot counts from the next Query
 * after the projector applied it, in this process and every other.
 */
const PROJECTIONS = ['offers', 'offer-internal'];

interface Loaded {
  key: string;
  candidates: Candidate[];
}

const held = new WeakMap<Db, Loaded>();
/** Loads under way, by the positions key that asked for them: requests that saw the same positions share one. */
const loading = new WeakMap<Db, Map<string, Promise<Loaded>>>();

const highest = (values: (string | undefined)[]) => {
  const numbers = values.filter((value): value is string => value !== undefined).map(Number);
  return numbers.length === 0 ? null : Math.max(...numbers);
};

/** A candidate from its row; undefined when its content cannot be shown (a malformed snapshot is never served). */
export function prepareCandidate(row: ServingCandidateRow): Candidate | undefined {
  let content: { details: OfferDetailsDocument; language: string | null } | undefined;
  if (row.details) content = { details: row.details, language: null };
  else if (row.snapshot) {
    const read = readSnapshotContent(row.snapshot.content);
    if (read.ok) content = { details: read.details, language: row.snapshot.language };
  }
  if (!content) return undefined;
  const offer = publicOffer({ offer_id: row.offer_id, kind: row.kind, status: 'active' }, content);
  // Served means servable now: a remote offer's quote is live at serve time, so its card says
  // active (the instance route later reports such cards expired, as the reference requires).
  offer.offer_info.status = 'active';
  // The card's action is its tracked link, set per serve; stored action names stay on offer info.
  delete offer.action;
  const goals = content.details.goals;
  return {
    offer_id: row.offer_id,
    test_only: row.test_only,
    category: content.details.offer_info.category.id,
    cpa: highest(goals.map((goal) => (goal.pricing.model === 'cpa' ? goal.pricing.amount : undefined))),
    cps: highest(goals.map((goal) => (goal.pricing.model === 'cps' ? goal.pricing.rate : undefined))),
    rules: row.targeting.map(({ include, exclude }) => ({ include, exclude })),
    destination_url: row.destination_url,
    offer,
  };
}

async function load(db: Db): Promise<Loaded> {
  // One snapshot: the rows are exactly those of the positions they are tagged with.
  return db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const key = await appliedPositionsKey(tx, PROJECTIONS);
    const rows = await servingCandidates(tx);
    const candidates = rows.map(prepareCandidate).filter((candidate): candidate is Candidate => candidate !== undefined);
    return { key, candidates: candidates.sort(comparePayout) };
  });
}

/** The servable offers as of now (at least as new as every offers commit before the call), in payout order. */
export async function currentCandidates(db: Db): Promise<readonly Candidate[]> {
  const key = await appliedPositionsKey(db, PROJECTIONS);
  const cached = held.get(db);
  if (cached?.key === key) return cached.candidates;
  const loads = loading.get(db) ?? new Map<string, Promise<Loaded>>();
  loading.set(db, loads);
  let pending = loads.get(key);
  if (!pending) {
    pending = load(db).finally(() => loads.delete(key));
    loads.set(key, pending);
  }
  const loaded = await pending;
  held.set(db, loaded);
  return loaded.candidates;
}
