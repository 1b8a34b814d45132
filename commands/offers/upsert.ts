import { Type, type Static } from '@sinclair/typebox';
import { uuidV7 } from '../../platform/ids/uuid-v7.js';
import type { Sql } from '../../platform/db/db.js';
import { findOffer } from '../../projections/offers/queries.js';
import { findPartner } from '../../projections/partners/queries.js';
import { offerDetailsDocument, newPricingProblem, type OfferDetailsDocument } from '../../schemas/documents/offer.js';
import { EventType, type OfferDetails, type OfferTargetingRule, type OfferUpserted } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { redirectProblem } from '../clicks/destination.js';
import { CommandInputError, CommandNotFoundError, defineCommand } from '../command.js';
import { canonicalUuid, httpUrl, oneOf } from '../input.js';
import { offerEvent } from './events.js';
import { checkTargeting, targetingInput } from './targeting.js';

const closed = { additionalProperties: false } as const;
const flag = (description: string) => Type.Optional(Type.Boolean({ description: `${description} (default false)` }));
// A Record's key pattern only picks which values it checks: without additionalProperties: false
// any other name would carry any value through, to fail the event schema as a backend error.
const stringMap = (description: string) =>
  Type.Optional(
    Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }), Type.String({ maxLength: 4000 }), {
      description,
      additionalProperties: false,
      keyDescription: '1 to 64 letters, digits, _, . or -',
    }),
  );

export const offerUpsertInput = Type.Object(
  {
    offer_id: Type.Optional(canonicalUuid("offer to create or replace; minted (UUIDv7) when absent; a replaced offer keeps its partner")),
    partner_id: canonicalUuid('supply partner that provides the offer (must be configured)'),
    upstream_offer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "the partner's own id of the offer" })),
    kind: oneOf(['local', 'remote'], 'local (details stored here) or remote (real-time, content from snapshots)'),
    status: oneOf(['active', 'paused', 'pending', 'rejected', 'expired'], 'lifecycle status'),
    deleted: flag('deleted offers are never shown'),
    delisted: flag('delisted offers are withdrawn from public reads'),
    test_only: flag('test-only offers are never public content'),
    details: Type.Optional({ ...offerDetailsDocument, description: 'public details of a local offer, as JSON in the offer document shape' }),
    targeting: Type.Optional(targetingInput),
    destination_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        // A scheme, then no white space: https URLs and app deep links (myapp://…) alike; an
        // http(s) URL with // and a host (`https:shop.example` would open relative to the link).
        pattern: '^(?![Hh][Tt][Tt][Pp][Ss]?:(?!//[^/?#\\s]))[A-Za-z][A-Za-z0-9+.-]*:[^\\s]+$',
        description: 'where a click on a served card goes, frozen into each serve: an absolute URL or an app deep link; {svc_click_id}, {offer_instance_id} and {sub_id1}…{sub_id5} macros are filled in at the click',
      }),
    ),
    internal: Type.Optional(
      Type.Object(
        {
          remote_endpoint: Type.Optional(httpUrl('real-time fetch endpoint of a remote offer')),
          credentials: stringMap('credentials for the partner endpoints, by name'),
          settlement_contract: Type.Optional(Type.String({ minLength: 1, maxLength: 4000, description: 'settlement contract reference or terms' })),
          recommendation_context: stringMap('ranking hints, by name'),
        },
        { ...closed, description: 'internal fields, never shown publicly: remote_endpoint, credentials, settlement_contract, recommendation_context' },
      ),
    ),
  },
  closed,
);
export type OfferUpsertInput = Static<typeof offerUpsertInput>;

/** Checks that need no database: details only on local offers, pricing fitting its model. */
export function checkOfferShape(input: OfferUpsertInput) {
  if (input.details && input.kind === 'remote') {
    throw new CommandInputError('details', 'is only for local offers; a remote offer publishes its content as snapshots (offer:publish-snapshot)');
  }
  const problem = input.details && newPricingProblem(input.details);
  if (problem) throw new CommandInputError(`details.${problem.field}`, problem.message);
  // The link origin never sends a browser to javascript:, data:, file: … (commands/clicks/destination.ts).
  const destinationProblem = input.destination_url === undefined ? undefined : redirectProblem(input.destination_url);
  if (destinationProblem) throw new CommandInputError('destination_url', destinationProblem);
}

/** The document as the OfferUpserted event stores it. */
export function detailsForEvent(document: OfferDetailsDocument): OfferDetails {
  return {
    title: document.offer_info.title,
    category_id: document.offer_info.category.id,
    description: document.offer_info.description,
    entity: { ...document.entity },
    goals: document.goals.map((goal) => ({
      event: goal.event,
      model: goal.pricing.model,
      amount: goal.pricing.amount ?? null,
      currency: goal.pricing.currency ?? null,
      rate: goal.pricing.rate ?? null,
    })),
    material: (document.material ?? []).map(({ format, url, tag }) => ({ format, url, tag })),
    action_name: document.action?.name ?? null,
    consumer_action: document.action?.consumer_action ?? null,
  };
}

/** The event for an input whose shape, references and targeting were checked. Pure. */
export function offerUpsertedEvent(input: OfferUpsertInput, targeting: OfferTargetingRule[], now: Date): OfferUpserted {
  const internal = input.internal;
  return {
    event_id: uuidV7(),
    offer_id: input.offer_id ?? uuidV7(),
    partner_id: input.partner_id,
    upstream_offer_id: input.upstream_offer_id ?? null,
    kind: input.kind as OfferUpserted['kind'],
    status: input.status as OfferUpserted['status'],
    deleted: input.deleted ?? false,
    delisted: input.delisted ?? false,
    test_only: input.test_only ?? false,
    details: input.details ? detailsForEvent(input.details) : null,
    targeting,
    internal: internal
      ? {
          remote_endpoint: internal.remote_endpoint ?? null,
          credentials: internal.credentials ?? {},
          settlement_contract: internal.settlement_contract ?? null,
          recommendation_context: internal.recommendation_context ?? {},
        }
      : null,
    updated_at: now.getTime(),
    destination_url: input.destination_url ?? null,
  };
}

async function assertPartnerExists(sql: Sql, partnerId: string) {
  if (!(await findPartner(sql, partnerId))) throw new CommandNotFoundError('partner_id', `no partner ${partnerId}; configure it first (partner:configure)`);
}

/**
 * An offer's partner never changes: its cards' clicks and conversions are that partner's, and a
 * postback is attributed only by the partner that owns the offer, so moving an offer would hand
 * the clicks already made on it to another partner and refuse its own.
 */
async function assertSamePartner(sql: Sql, offerId: string | undefined, partnerId: string) {
  if (offerId === undefined) return;
  const existing = await findOffer(sql, offerId);
  if (existing && existing.partner_id !== partnerId) {
    throw new CommandInputError('partner_id', `offer ${offerId} belongs to partner ${existing.partner_id}, and an offer's partner never changes (its clicks and conversions are that partner's); create a new offer for partner ${partnerId}`);
  }
}

/** Creates or replaces an offer's whole state, targeting checked against the FULL catalog. */
export const upsertOffer = defineCommand({
  name: 'offer:upsert',
  summary: 'Create or replace an offer: kind, status, flags, public details, targeting (checked against the FULL catalog), internals',
  reads: ['partners', 'offers'],
  writes: ['offers'],
  input: offerUpsertInput,
  async execute(input, { runtime, now }) {
    checkOfferShape(input);
    const targeting = await checkTargeting(runtime.db, input.targeting ?? []);
    await assertPartnerExists(runtime.db, input.partner_id);
    await assertSamePartner(runtime.db, input.offer_id, input.partner_id);
    const value = offerUpsertedEvent(input, targeting, now());
    const [appended] = await appendEvents(runtime, 'offers', [offerEvent(EventType.OfferUpserted, value)]);
    return { offer_id: value.offer_id, event_id: value.event_id, ...appended };
  },
});
