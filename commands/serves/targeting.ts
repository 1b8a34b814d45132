/**
 * Offer-side geographic targeting, evaluated before ranking (reference: Offer-side geographic
 * targeting). Pure: the caller's location comes as its verified FULL chain, self to root.
 *
 * - A location matches itself or any descendant: a rule id matches when it is in the chain.
 * - `geo.exclude` wins: an id excluded by any rule removes the offer, whatever includes it.
 * - Includes: when any rule includes ids, one of them must match; rules with only excludes
 *   leave everything else targeted.
 * - An offer with targeting and an unknown caller location is not served; an offer without
 *   targeting is served everywhere.
 */
export interface GeoRule {
  include: string[];
  exclude: string[];
}

export type TargetingDecision =
  | { served: true; reason: 'no_targeting' }
  | { served: true; reason: 'not_excluded' }
  | { served: true; reason: 'included'; rule: number; via: string }
  | { served: false; reason: 'excluded'; rule: number; via: string }
  | { served: false; reason: 'not_included' }
  | { served: false; reason: 'unknown_location' };

/** The first rule (in order) listing an id of the chain, and which chain id: the nearest to the location. */
function firstMatch(rules: GeoRule[], mode: 'include' | 'exclude', chain: string[]): { rule: number; via: string } | undefined {
  for (const id of chain) {
    let best: number | undefined;
    rules.forEach((rule, index) => {
      if (best === undefined && rule[mode].includes(id)) best = index;
    });
    if (best !== undefined) return { rule: best, via: id };
  }
  return undefined;
}

export function evaluateTargeting(rules: GeoRule[], chain: string[] | undefined): TargetingDecision {
  const targeted = rules.some((rule) => rule.include.length > 0 || rule.exclude.length > 0);
  if (!targeted) return { served: true, reason: 'no_targeting' };
  if (!chain || chain.length === 0) return { served: false, reason: 'unknown_location' };
  const excluded = firstMatch(rules, 'exclude', chain);
  if (excluded) return { served: false, reason: 'excluded', ...excluded };
  if (!rules.some((rule) => rule.include.length > 0)) return { served: true, reason: 'not_excluded' };
  const included = firstMatch(rules, 'include', chain);
  return included ? { served: true, reason: 'included', ...included } : { served: false, reason: 'not_included' };
}
