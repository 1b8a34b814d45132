import { Decimal } from 'decimal.js';
import type { Db } from '../../../../platform/db/db.js';
import type { Watermarks } from '../../../../platform/projection/watermarks.js';
import { readSnapshotContent } from '../../../../projections/offers/details.js';
import { servingCandidates, type ServingCandidateRow } from '../../../../projections/offers/internal/queries.js';
import { publicOffer } from '../../../../projections/offers/public-offer.js';
import type { OfferDetailsDocument } from '../../../../schemas/documents/offer.js';
import { comparePayout, type Candidate } from './query-ranking.js';

/**
 * The servable offers, held in memory per process and prepared in payout order. They are read
 * again after the offers projections commit anything, heard through the applied-watermark
 * notifications before anyone waiting for that commit wakes (a notification gap counts as a
 * commit). So a paused offer or a new snapshot counts from the next Query after the projector
 * applied it, in this process and every other, with no read per request.
 */
const PROJECTIONS = new Set(['offers', 'offer-internal']);

export interface ServingCandidates {
  /** The servable offers as of the last offers commit this process heard of, in payout order. */
  current(): Promise<readonly Candidate[]>;
  close(): void;
}

/** Exact: the offer document allows more digits than a JS number holds. */
const highest = (values: (string | undefined)[]) => {
  const decimals = values.filter((value): value is string => value !== undefined).map((value) => new Decimal(value));
  return decimals.length === 0 ? null : Decimal.max(...decimals);
};

/** A candidate from its row; undefined when its content cannot be shown (a malformed snapshot is never served). */
function prepareCandidate(row: ServingCandidateRow): Candidate | undefined {
  let content: { details: OfferDetailsDocument; language: string | null } | undefined;
  if (row.details) content = { details: row.details, language: null };
  else if (row.snapshot) {
    const read = readSnapshotContent(row.snapshot.content);
    if (read.ok) content = { details: read.details, language: row.snapshot.language };
  }
  if (!content) return undefined;
  const offer = publicOffer({ offer_id: row.offer_id, kind: row.kind, status: 'active', deleted: false, delisted: false, test_only: false }, content);
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

async function load(db: Db): Promise<Candidate[]> {
  // servingCandidates reads in two statements: one snapshot makes them agree.
  const rows = await db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    return servingCandidates(tx);
  });
  const candidates = rows.map(prepareCandidate).filter((candidate): candidate is Candidate => candidate !== undefined);
  return candidates.sort(comparePayout);
}

export function servingCandidatesOf(db: Db, watermarks: Pick<Watermarks, 'onApplied' | 'hearing'>): ServingCandidates {
  /** Bumped by every offers commit: a load that started before one is answered but not kept. */
  let generation = 0;
  let held: readonly Candidate[] | undefined;
  let loading: { generation: number; candidates: Promise<Candidate[]> } | undefined;
  const unsubscribe = watermarks.onApplied((position) => {
    if (position && !PROJECTIONS.has(position.projection)) return;
    generation += 1;
    held = undefined;
  });
  return {
    async current() {
      if (held) return held;
      // Requests that arrive while a load of this generation runs share it.
      if (loading?.generation !== generation) {
        const started = generation;
        const candidates = load(db);
        loading = { generation: started, candidates };
        void candidates
          .then((loaded) => {
            // Read while the listening session is down, they would outlive a commit nobody heard.
            if (generation === started && watermarks.hearing()) held = loaded;
          }, () => {})
          .finally(() => {
            if (loading?.candidates === candidates) loading = undefined;
          });
      }
      return loading!.candidates;
    },
    close: unsubscribe,
  };
}
