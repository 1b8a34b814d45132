import { Type, type Static } from '@sinclair/typebox';
import { isKnownCurrency, minorUnitsOf } from './currency.js';

const text = (description: string, maxLength = 500) => Type.String({ minLength: 1, maxLength, description });
const closed = { additionalProperties: false } as const;

/** Exact non-negative decimal strings: money never goes through a float. */
const DECIMAL_PATTERN = '^(0|[1-9][0-9]{0,11})(\\.[0-9]{1,8})?$';
const httpUrl = Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2000, description: 'absolute http or https URL' });

/**
 * Public details in the shape of the offer document (offer_info, entity, goals, material, action):
 * a contract. Commands take it as input (offer:upsert's details, a snapshot's content), local
 * offers carry it in OfferUpserted, remote snapshots as JSON text, and the offer routes answer
 * in its shape.
 */
export const offerDetailsDocument = Type.Object(
  {
    offer_info: Type.Object(
      {
        title: text('offer_info.title'),
        category: Type.Object({ id: text('offer_info.category.id', 200) }, { ...closed, description: 'offer_info.category: {id}' }),
        description: Type.String({ maxLength: 10_000, description: 'offer_info.description' }),
      },
      { ...closed, description: 'public offer information: title, category.id, description (status is separate)' },
    ),
    entity: Type.Object(
      { id: text('entity.id', 200), name: text('entity.name'), type: text('entity.type', 100) },
      { ...closed, description: 'public entity: id, name, type' },
    ),
    goals: Type.Array(
      Type.Object(
        {
          event: text('goals[].event, the goal postbacks map to', 100),
          pricing: Type.Object(
            {
              model: Type.Union([Type.Literal('cpa'), Type.Literal('cps')], { description: 'cpa (amount + currency) or cps (rate)' }),
              amount: Type.Optional(Type.String({ pattern: DECIMAL_PATTERN, description: "an exact decimal string, not negative, at most 12 digits before the point and 8 after, e.g. 12.50 (cpa only; no finer than the currency's minor unit: 35 JPY, not 34.93)" })),
              currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'an ISO 4217 code in capitals, e.g. USD (cpa only)' })),
              rate: Type.Optional(Type.String({ pattern: DECIMAL_PATTERN, description: 'a percentage as an exact decimal string, not negative, e.g. 7.5 (cps only)' })),
            },
            { ...closed, description: 'pricing of the goal' },
          ),
        },
        { ...closed, description: 'one goal: event and pricing' },
      ),
      { minItems: 1, maxItems: 50, description: 'priced goals, in document order' },
    ),
    material: Type.Optional(
      Type.Array(
        Type.Object(
          { format: text('material[].format, e.g. image', 50), url: httpUrl, tag: text('material[].tag, e.g. icon', 100) },
          { ...closed, description: 'one creative asset' },
        ),
        { maxItems: 50, description: 'public creative assets' },
      ),
    ),
    action: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(text('action.name shown on the offer info route', 200)),
          consumer_action: Type.Optional(text('action.consumer_action shown on the offer info route', 500)),
        },
        { ...closed, description: 'action name and consumer_action (the link itself is never stored here)' },
      ),
    ),
  },
  { ...closed, description: 'public details: offer_info, entity, goals, material, action' },
);
export type OfferDetailsDocument = Static<typeof offerDetailsDocument>;

/** What the schema cannot say: pricing fields must fit the model. Returns the first problem. */
export function pricingProblem(document: OfferDetailsDocument): { field: string; message: string } | undefined {
  for (const [index, goal] of document.goals.entries()) {
    const at = (name: string) => `goals[${index}].pricing.${name}`;
    const { model, amount, currency, rate } = goal.pricing;
    if (model === 'cpa') {
      if (amount === undefined) return { field: at('amount'), message: 'is required for cpa pricing' };
      if (currency === undefined) return { field: at('currency'), message: 'is required for cpa pricing' };
      if (rate !== undefined) return { field: at('rate'), message: 'is only allowed for cps pricing' };
    } else {
      if (rate === undefined) return { field: at('rate'), message: 'is required for cps pricing' };
      if (Number(rate) > 100) return { field: at('rate'), message: 'is a percentage and must not exceed 100' };
      if (amount !== undefined) return { field: at('amount'), message: 'is only allowed for cpa pricing' };
      if (currency !== undefined) return { field: at('currency'), message: 'is only allowed for cpa pricing' };
    }
  }
  const events = document.goals.map((goal) => goal.event);
  const repeated = events.findIndex((event, index) => events.indexOf(event) !== index);
  if (repeated >= 0) return { field: `goals[${repeated}].event`, message: `repeats the goal event "${events[repeated]}"` };
  return undefined;
}

/**
 * pricingProblem, and also what new documents must meet beyond it: a cpa goal's currency is an
 * ISO 4217 code money is accepted in (currency.ts; its payout could not be computed otherwise),
 * and its amount has no more fraction digits than that currency's minor unit (the price the offer
 * shows is the one paid: 1.2345 JPY would be paid 1). Commands check this; documents already in
 * the log are read with pricingProblem alone, as they always were.
 */
export function newPricingProblem(document: OfferDetailsDocument): { field: string; message: string } | undefined {
  const problem = pricingProblem(document);
  if (problem) return problem;
  const unknown = document.goals.findIndex((goal) => goal.pricing.currency !== undefined && !isKnownCurrency(goal.pricing.currency));
  if (unknown >= 0) return { field: `goals[${unknown}].pricing.currency`, message: `is not an ISO 4217 currency code (${JSON.stringify(document.goals[unknown]!.pricing.currency)})` };
  for (const [index, { pricing }] of document.goals.entries()) {
    if (pricing.amount === undefined || pricing.currency === undefined) continue;
    const digits = minorUnitsOf(pricing.currency)!;
    // Trailing zeros change nothing: 12.500 USD is 12.50.
    const given = (pricing.amount.split('.')[1] ?? '').replace(/0+$/, '').length;
    if (given > digits) {
      return { field: `goals[${index}].pricing.amount`, message: `has ${given} decimal places; ${pricing.currency} is paid in units of ${digits === 0 ? '1' : `0.${'0'.repeat(digits - 1)}1`} (at most ${digits} decimal places)` };
    }
  }
  return undefined;
}
