import type { OfferDetailsDocument } from '../../schemas/documents/offer.js';
import type { PostbackFields } from './fields.js';
import { payoutFor } from './payout.js';
import { PostbackRejection } from './rejections.js';

export interface ConversionPricing {
  goal_event: string | null;
  payout_amount: string | null;
  payout_currency: string | null;
}

/**
 * The goal an event_name maps to on this offer (through the partner's mapping), with its payout;
 * a null goal is unmapped. Throws PostbackRejection('missing_amount') for a CPS goal without an
 * amount. Pure.
 */
export function priceConversion(goalMappings: Record<string, string>, offerId: string, goals: OfferDetailsDocument['goals'], fields: PostbackFields): ConversionPricing {
  const goalEvent = goalMappings[fields.event_name];
  const goal = goalEvent === undefined ? undefined : goals.find((candidate) => candidate.event === goalEvent);
  if (!goal) return { goal_event: null, payout_amount: null, payout_currency: null };
  const pricing = goal.pricing;
  const payout = payoutFor(
    pricing.model === 'cpa'
      ? { model: 'cpa', amount: pricing.amount ?? null, currency: pricing.currency ?? null, rate: null }
      : { model: 'cps', amount: null, currency: null, rate: pricing.rate ?? null },
    { amount: fields.amount, currency: fields.currency },
  );
  if (!payout.ok) {
    if (payout.reason === 'missing_amount') throw new PostbackRejection('missing_amount', `goal "${goal.event}" pays a share of the sale: send amount and currency`);
    throw new PostbackRejection('invalid_goal_pricing', `offer ${offerId} goal "${goal.event}": ${payout.message}`);
  }
  return { goal_event: goal.event, payout_amount: payout.amount, payout_currency: payout.currency };
}
