import { Type } from '@sinclair/typebox';
import type { Sql } from '../../platform/db/db.js';
import { offerTargeting } from '../../projections/offers/internal/queries.js';
import { readSnapshotContent } from '../../projections/offers/details.js';
import { findOffer, selectRemoteSnapshot, type StoredOffer } from '../../projections/offers/queries.js';
import { currentRelease, findLocation, locationIdsOf } from '../../reference/locations/full/queries.js';
import { registryChain } from '../../reference/locations/legacy/queries.js';
import { targetingChain } from '../../reference/locations/targeting-chain.js';
import { CommandNotFoundError, defineCommand } from '../command.js';
import { canonicalUuid } from '../input.js';
import { evaluateTargeting, type TargetingDecision } from '../serves/targeting.js';

/**
 * "Why is my offer not shown in X?": evaluates the offer's targeting for one location of the
 * current FULL release, as serving does, and names the rule and the ancestor that decided. Reads
 * only; appends nothing.
 */
export const explainTargeting = defineCommand({
  name: 'offer:explain-targeting',
  summary: 'Explain whether an offer is served at a location: which targeting rule included or excluded it, through which ancestor',
  reads: ['offers'],
  writes: [],
  input: Type.Object(
    {
      offer_id: canonicalUuid('the offer'),
      location_id: Type.String({ pattern: '^[1-9][0-9]{0,18}$', description: 'a location id of the current FULL catalog, as the catalog writes it (no leading zero)' }),
    },
    { additionalProperties: false },
  ),
  async execute(input, { runtime }) {
    const offer = await findOffer(runtime.db, input.offer_id);
    if (!offer) throw new CommandNotFoundError('offer_id', `no offer ${input.offer_id} (a record created moments ago may not be projected yet: retry shortly)`);
    const release = await currentRelease(runtime.db);
    const location = release && (await findLocation(runtime.db, release.releaseId, input.location_id));
    if (!location) {
      throw new CommandNotFoundError('location_id', `location ${input.location_id} is not in the current FULL catalog${release ? ` (release ${release.sourceFileDate})` : ' (none is loaded)'}`);
    }
    const rules = await offerTargeting(runtime.db, input.offer_id);
    // As serving matches a caller there (query-geo.ts): the FULL chain, completed by the registry's.
    const chain = targetingChain(locationIdsOf(location), await registryChain(runtime.db, input.location_id));
    const evaluated = evaluateTargeting(rules, chain);
    // Rules are stored by their index in the offer's targeting; a rule with no ids has no rows.
    const decision = 'rule' in evaluated ? { ...evaluated, rule: rules[evaluated.rule]!.rule_index } : evaluated;
    const names = new Map(location.path.map((node) => [node.location_id, node.name]));
    for (const id of chain) if (!names.has(id)) names.set(id, (await findLocation(runtime.db, release.releaseId, id))?.name ?? id);
    // Targeting is one condition of serving; status, flags and content decide too (as Query's candidates).
    const unservable = unservableBecause(offer) ?? (await remoteContentMissing(runtime.db, offer));
    const explanation = explain(decision, location.name, names);
    return {
      offer_id: input.offer_id,
      location_id: input.location_id,
      location_ids: chain,
      served: decision.served && unservable === undefined,
      reason: decision.reason,
      ...('rule' in decision ? { rule: decision.rule, via_location_id: decision.via, via_name: names.get(decision.via) } : {}),
      explanation: unservable === undefined ? explanation : `${explanation}; but ${unservable}`,
      rules: rules.map((rule) => ({ rule: rule.rule_index, include: rule.include, exclude: rule.exclude })),
      offer_status: offer.status,
      ...(unservable !== undefined ? { not_served_because: unservable } : {}),
    };
  },
});

/** Why the offer is served nowhere to live serves, whatever its targeting; undefined when it is servable. */
function unservableBecause(offer: StoredOffer): string | undefined {
  if (offer.deleted) return 'the offer is deleted: it is served nowhere';
  if (offer.delisted) return 'the offer is delisted: it is served nowhere';
  if (offer.status !== 'active') return `the offer is ${offer.status}: it is served nowhere until it is active`;
  if (offer.kind === 'local' && offer.details === null) return 'the offer has no public details: it is served nowhere until it has';
  if (offer.test_only) return 'the offer is test-only: it is served to test serves only';
  return undefined;
}

/**
 * Why a remote offer is served nowhere for want of content: Query serves it with the snapshot offer
 * info would select, so none active, or one that cannot be read, serves nothing. Undefined otherwise.
 */
async function remoteContentMissing(sql: Sql, offer: StoredOffer): Promise<string | undefined> {
  if (offer.kind !== 'remote') return undefined;
  const snapshot = await selectRemoteSnapshot(sql, offer.offer_id);
  if (!snapshot) return 'the remote offer has no active snapshot: it is served nowhere until one is published';
  const content = readSnapshotContent(snapshot.content);
  if (!content.ok) return `the remote offer's selected snapshot ${snapshot.snapshot_id} cannot be read (${content.problem}): it is served nowhere until a readable one is published`;
  return undefined;
}

function explain(decision: TargetingDecision, place: string, names: Map<string, string>): string {
  const via = (id: string) => (names.get(id) === place ? `${place} itself` : `its ancestor ${names.get(id)} (${id})`);
  switch (decision.reason) {
    case 'no_targeting':
      return 'the offer has no targeting: it is served everywhere';
    case 'not_excluded':
      return `no rule excludes ${place} or an ancestor, and no rule restricts by inclusion`;
    case 'included':
      return `rule ${decision.rule} includes ${via(decision.via)}, and no rule excludes it`;
    case 'excluded':
      return `rule ${decision.rule} excludes ${via(decision.via)}; an exclusion wins over any inclusion`;
    case 'not_included':
      return `no rule includes ${place} or any of its ancestors`;
    case 'unknown_location':
      return 'the location is unknown: an offer with targeting is not served';
  }
}
