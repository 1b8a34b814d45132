import { Decimal } from 'decimal.js';
import { isKnownCurrency, minorUnitsOf } from '../../schemas/documents/currency.js';
import type { OfferPricingModel } from '../../schemas/generated/events.js';

/**
 * Money of a postback: canonical decimal strings and the payout of a goal. Exact decimal
 * arithmetic only (money never goes through a float); pure.
 */

/** An accepted decimal string (see canonicalDecimal). */
export const DECIMAL = /^(0|[1-9][0-9]{0,14})(\.[0-9]{1,8})?$/;

/**
 * Canonical form of a decimal string: non-negative, at most 15 integer and 8 fraction digits, no
 * exponent, sign, leading zeros or spaces; returned without trailing fraction zeros ("12.50" →
 * "12.5", "3.0" → "3"). undefined when not accepted.
 */
export function canonicalDecimal(text: string): string | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const fraction = (match[2] ?? '').replace(/\.?0+$/, '');
  return `${match[1]}${fraction}`;
}

/** Fraction digits of the currency's minor unit as ISO 4217 lists it (JPY 0, USD 2, BHD and IQD 3); 2 for a code not listed. */
export function minorUnits(currency: string): number {
  return minorUnitsOf(currency) ?? 2;
}

// Own constructor so no other module's Decimal.set can change it. 64 significant digits hold
// any product of two accepted decimals (23 digits each) exactly; rounding happens only in toFixed.
const Exact = Decimal.clone({ precision: 64, rounding: Decimal.ROUND_HALF_UP });

/** The value printed with exactly the currency's minor units, rounded half-up (away from zero at .5). */
function inMinorUnits(value: Decimal, currency: string): string {
  return value.toFixed(minorUnits(currency), Decimal.ROUND_HALF_UP);
}

/** A goal's pricing as offers store it (OfferGoal: cpa carries amount + currency, cps a rate). */
export interface GoalPricing {
  model: OfferPricingModel;
  amount: string | null;
  currency: string | null;
  /** Percentage, e.g. "7.5" for 7.5 %. */
  rate: string | null;
}

export type Payout = { ok: true; amount: string; currency: string } | { ok: false; reason: 'missing_amount' | 'invalid_goal_pricing'; message: string };

/**
 * CPA: the goal's amount and currency (the reported amount is ignored). CPS: reported amount ×
 * rate / 100 in the reported currency. Both are printed with exactly the currency's minor units,
 * rounded half-up ("7.50", JPY "8", BHD "1.235"). A CPS goal without a reported amount and known
 * currency → missing_amount; a goal whose own pricing is incomplete or malformed →
 * invalid_goal_pricing.
 */
export function payoutFor(goal: GoalPricing, reported: { amount?: string; currency?: string }): Payout {
  if (goal.model === 'cpa') {
    const amount = goal.amount === null ? undefined : canonicalDecimal(goal.amount);
    if (amount === undefined || goal.currency === null || !isKnownCurrency(goal.currency)) {
      return { ok: false, reason: 'invalid_goal_pricing', message: 'the goal is priced cpa but has no valid amount and ISO 4217 currency' };
    }
    return { ok: true, amount: inMinorUnits(new Exact(amount), goal.currency), currency: goal.currency };
  }
  const rate = goal.rate === null ? undefined : canonicalDecimal(goal.rate);
  if (rate === undefined) return { ok: false, reason: 'invalid_goal_pricing', message: 'the goal is priced cps but has no valid rate' };
  const amount = reported.amount === undefined ? undefined : canonicalDecimal(reported.amount);
  if (amount === undefined || reported.currency === undefined || !isKnownCurrency(reported.currency)) {
    return { ok: false, reason: 'missing_amount', message: 'the goal is priced cps (a share of the sale): the postback must report amount and currency' };
  }
  const payout = new Exact(amount).times(rate).times('0.01');
  return { ok: true, amount: inMinorUnits(payout, reported.currency), currency: reported.currency };
}
