import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateTargeting, type GeoRule } from '../../commands/serves/targeting.js';

/** A random forest: node i's parent is a smaller id or none. */
const forest = fc.integer({ min: 1, max: 40 }).chain((size) =>
  fc.tuple(...Array.from({ length: size }, (_, index) => (index === 0 ? fc.constant(-1) : fc.integer({ min: -1, max: index - 1 })))),
);

function chainOf(parents: number[], node: number): string[] {
  const chain: string[] = [];
  for (let at = node; at !== -1; at = parents[at]!) chain.push(String(at));
  return chain;
}

/** The rules read literally: "x matches y" iff y is x or an ancestor of x, found by walking parents. */
function isWithin(parents: number[], location: number, target: number): boolean {
  for (let at = location; at !== -1; at = parents[at]!) if (at === target) return true;
  return false;
}
function modelServed(parents: number[], rules: GeoRule[], location: number | undefined): boolean {
  const ids = (list: string[]) => list.map(Number);
  if (!rules.some((rule) => rule.include.length + rule.exclude.length > 0)) return true;
  if (location === undefined) return false;
  if (rules.some((rule) => ids(rule.exclude).some((target) => isWithin(parents, location, target)))) return false;
  const includes = rules.flatMap((rule) => ids(rule.include));
  return includes.length === 0 || includes.some((target) => isWithin(parents, location, target));
}

const rulesFor = (size: number) =>
  fc.array(
    fc.record({
      include: fc.uniqueArray(fc.integer({ min: 0, max: size - 1 }).map(String), { maxLength: 4 }),
      exclude: fc.uniqueArray(fc.integer({ min: 0, max: size - 1 }).map(String), { maxLength: 3 }),
    }),
    { maxLength: 10 },
  );

describe('offer-side targeting', () => {
  it('agrees with a brute-force reading of the rules over random trees', () => {
    fc.assert(
      fc.property(
        forest.chain((parents) =>
          fc.tuple(fc.constant(parents), rulesFor(parents.length), fc.option(fc.integer({ min: 0, max: parents.length - 1 }), { nil: undefined })),
        ),
        ([parents, rules, location]) => {
          const decision = evaluateTargeting(rules, location === undefined ? undefined : chainOf(parents, location));
          expect(decision.served).toBe(modelServed(parents, rules, location));
          // The explanation names a rule that really lists an id of the location's chain.
          if ('via' in decision) {
            const mode = decision.reason === 'excluded' ? 'exclude' : 'include';
            expect(rules[decision.rule]![mode]).toContain(decision.via);
            expect(isWithin(parents, location!, Number(decision.via))).toBe(true);
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('explains through the nearest ancestor and lets exclude win', () => {
    // 2840 United States > 21137 California > 1014221 Los Angeles
    const la = ['1014221', '21137', '2840'];
    expect(evaluateTargeting([], la)).toEqual({ served: true, reason: 'no_targeting' });
    expect(evaluateTargeting([{ include: ['2840'], exclude: [] }], la)).toEqual({ served: true, reason: 'included', rule: 0, via: '2840' });
    expect(evaluateTargeting([{ include: ['2840'], exclude: [] }, { include: ['21137'], exclude: [] }], la)).toEqual({
      served: true, reason: 'included', rule: 1, via: '21137',
    });
    expect(evaluateTargeting([{ include: ['2840'], exclude: ['21137'] }], la)).toEqual({ served: false, reason: 'excluded', rule: 0, via: '21137' });
    expect(evaluateTargeting([{ include: ['1014221'], exclude: [] }, { include: [], exclude: ['2840'] }], la)).toMatchObject({ served: false, reason: 'excluded', rule: 1 });
    expect(evaluateTargeting([{ include: [], exclude: ['2250'] }], la)).toEqual({ served: true, reason: 'not_excluded' });
    expect(evaluateTargeting([{ include: ['2250'], exclude: [] }], la)).toEqual({ served: false, reason: 'not_included' });
    expect(evaluateTargeting([{ include: ['2840'], exclude: [] }], undefined)).toEqual({ served: false, reason: 'unknown_location' });
    // A child of an included region does not match its parent: targeting goes down, never up.
    expect(evaluateTargeting([{ include: ['1014221'], exclude: [] }], ['21137', '2840'])).toEqual({ served: false, reason: 'not_included' });
  });
});
