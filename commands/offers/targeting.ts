import { Type, type Static } from '@sinclair/typebox';
import type { Sql } from '../../platform/db/db.js';
import { currentRelease, existingLocationIds } from '../../reference/locations/full/queries.js';
import { GEO_LOAD_COMMAND } from '../../reference/locations/how-to-load.js';
import type { OfferTargetingRule } from '../../schemas/generated/events.js';
import { CommandInputError, CommandUnavailableError } from '../command.js';

const closed = { additionalProperties: false } as const;
const MAX_TARGETING_RULES = 10;

const locationRef = Type.Object(
  { location_id: Type.String({ pattern: '^[0-9]+$', maxLength: 19, description: 'FULL catalog location id (numeric string)' }) },
  { ...closed, description: 'exactly one location_id' },
);

export const targetingInput = Type.Array(
  Type.Object(
    {
      geo: Type.Object(
        {
          include: Type.Optional(Type.Array(locationRef, { maxItems: 1000, description: 'locations (and their descendants) the rule includes' })),
          exclude: Type.Optional(Type.Array(locationRef, { maxItems: 1000, description: 'locations (and their descendants) the rule excludes; exclude wins' })),
        },
        { ...closed, description: 'geo.include and geo.exclude' },
      ),
    },
    { ...closed, description: 'one targeting rule' },
  ),
  {
    maxItems: MAX_TARGETING_RULES,
    description: `offer-side targeting, at most ${MAX_TARGETING_RULES} rules: [{"geo":{"include":[{"location_id":"2840"}],"exclude":[]}}]; ids must exist in the current FULL catalog`,
  },
);
export type TargetingInput = Static<typeof targetingInput>;

interface IdRef {
  field: string;
  rule: number;
  mode: 'include' | 'exclude';
  id: string;
}

/**
 * Shape checks beyond the schema: no empty rule, no id twice in one list, nor in both lists of one
 * rule (exclude wins, so that include could never match). Returns every id.
 */
function collectIds(rules: TargetingInput): IdRef[] {
  const refs: IdRef[] = [];
  rules.forEach((rule, index) => {
    const include = rule.geo.include ?? [];
    const exclude = rule.geo.exclude ?? [];
    if (include.length + exclude.length === 0) {
      throw new CommandInputError(`targeting[${index}].geo`, `rule targeting[${index}] must include or exclude at least one location`);
    }
    const excluded = new Set(exclude.map(({ location_id }) => location_id));
    const both = include.findIndex(({ location_id }) => excluded.has(location_id));
    if (both >= 0) {
      const id = include[both]!.location_id;
      throw new CommandInputError(
        `targeting[${index}].geo.include[${both}].location_id`,
        `rule targeting[${index}] both includes and excludes location ${id}; exclude wins, so that include would match nothing: keep one`,
      );
    }
    for (const [mode, list] of [['include', include], ['exclude', exclude]] as const) {
      const seen = new Set<string>();
      list.forEach(({ location_id }, position) => {
        const field = `targeting[${index}].geo.${mode}[${position}].location_id`;
        if (seen.has(location_id)) throw new CommandInputError(field, `rule targeting[${index}] lists location ${location_id} twice in geo.${mode}`);
        seen.add(location_id);
        refs.push({ field, rule: index, mode, id: location_id });
      });
    }
  });
  return refs;
}

/**
 * Checks every id against the current FULL release (syntax alone is not enough) and returns the
 * rules as the event stores them. Throws CommandInputError naming the rule and the first missing id.
 */
export async function checkTargeting(sql: Sql, rules: TargetingInput): Promise<OfferTargetingRule[]> {
  const refs = collectIds(rules);
  if (refs.length > 0) {
    const release = await currentRelease(sql);
    if (!release) {
      throw new CommandUnavailableError('CATALOG_NOT_LOADED', `the FULL location catalog is not loaded (load one with \`${GEO_LOAD_COMMAND}\`); targeting cannot be checked`);
    }
    const known = await existingLocationIds(sql, release.releaseId, refs.map((ref) => ref.id));
    const missing = refs.filter((ref) => !known.has(ref.id));
    const first = missing[0];
    if (first) {
      const more = missing.length > 1 ? ` (${missing.length - 1} more id(s) are missing too)` : '';
      throw new CommandInputError(
        first.field,
        `rule targeting[${first.rule}] ${first.mode}s location ${first.id}, which is not in the FULL catalog (release ${release.sourceFileDate})${more}`,
      );
    }
  }
  return targetingRules(rules);
}

/** The rules as the event stores them: bare id lists. Pure; the ids must have been checked. */
export function targetingRules(rules: TargetingInput): OfferTargetingRule[] {
  return rules.map((rule) => ({
    geo: {
      include: (rule.geo.include ?? []).map((ref) => ref.location_id),
      exclude: (rule.geo.exclude ?? []).map((ref) => ref.location_id),
    },
  }));
}
