import type { Decimal } from 'decimal.js';
import { evaluateTargeting, type GeoRule } from '../../../../commands/serves/targeting.js';
import type { PublicOffer } from '../../../../projections/offers/public-offer.js';
import type { ServeEnvironment } from '../../../../schemas/generated/events.js';

/** An offer Query may serve, prepared once per change of the offers read models. */
export interface Candidate {
  offer_id: string;
  test_only: boolean;
  category: string;
  /** Highest CPA amount of its goals (any currency), exact, null without a CPA goal. */
  cpa: Decimal | null;
  /** Highest CPS rate of its goals (percent), exact, null without a CPS goal. */
  cps: Decimal | null;
  rules: GeoRule[];
  destination_url: string | null;
  /** The card's offer object without offer_instance_id and action. */
  offer: PublicOffer;
}

const descendingNullsLast = (a: Decimal | null, b: Decimal | null) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : b.comparedTo(a));

/**
 * Payout order, the ranking after category match: highest CPA amount first (amounts compared
 * exactly as decimals whatever their currency: no conversion), offers without CPA after those with; then
 * highest CPS rate; then offer id ascending, so the order is total and stable.
 */
export function comparePayout(a: Candidate, b: Candidate): number {
  return descendingNullsLast(a.cpa, b.cpa) || descendingNullsLast(a.cps, b.cps) || (a.offer_id < b.offer_id ? -1 : a.offer_id > b.offer_id ? 1 : 0);
}

export interface RankRequest {
  environment: ServeEnvironment;
  /** The caller's FULL chain, self to root; undefined when the location is unknown. */
  chain: string[] | undefined;
  categories: readonly string[];
  limit: number;
}

/**
 * The cards to serve, best first. `byPayout` is the candidates in comparePayout order. Targeting
 * (and the test-only rule: test-only offers only for test serves) filters before ranking; then
 * offers whose category is one of `categories` come first, each group in payout order.
 */
export function rankCandidates(byPayout: readonly Candidate[], request: RankRequest): Candidate[] {
  const wanted = new Set(request.categories);
  const matching: Candidate[] = [];
  const others: Candidate[] = [];
  for (const candidate of byPayout) {
    if (candidate.test_only && request.environment !== 'test') continue;
    if (!evaluateTargeting(candidate.rules, request.chain).served) continue;
    if (wanted.has(candidate.category)) {
      matching.push(candidate);
      if (matching.length === request.limit) break;
    } else if (others.length < request.limit) {
      others.push(candidate);
      // Nothing can rank above these any more.
      if (wanted.size === 0 && others.length === request.limit) break;
    }
  }
  return [...matching, ...others].slice(0, request.limit);
}
