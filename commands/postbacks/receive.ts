import type { Sql } from '../../platform/db/db.js';
import { resultWithin } from '../../platform/async/deadline.js';
import type { Runtime } from '../../platform/runtime.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { findClick } from '../../projections/clicks/queries.js';
import { findDecision, type PostbackDecision } from '../../projections/ledger/queries.js';
import { findOffer, remoteOfferGoals, type StoredOffer } from '../../projections/offers/queries.js';
import { CANONICAL_UUID } from '../../platform/ids/uuid-text.js';
import { findPartner, type Partner } from '../../projections/partners/queries.js';
import { findServedInstances } from '../../projections/serves/queries.js';
import type { OfferDetailsDocument } from '../../schemas/documents/offer.js';
import { EventType, type PostbackReceived } from '../../schemas/generated/events.js';
import { appendEvents, newEvent } from '../append.js';
import { resolveAttribution, type Attribution, type AttributionReads } from './attribution.js';
import type { PostbackFields } from './fields.js';
import { postbackFingerprint, postbackIdentity } from './identity.js';
import { PostbackRejection } from './rejections.js';
import { partnerAdmits } from './source-allowlist.js';
import { priceConversion, type ConversionPricing } from './pricing.js';
import { postbackLogKey } from './log-key.js';

export type PostbackChannel = PostbackReceived['channel'];

export interface PostbackRequest {
  partner_id: string;
  /** The caller's address as the allowlist sees it (socket, or a trusted proxy's client address). */
  source_ip: string;
  channel: PostbackChannel;
  fields: PostbackFields;
  /** Minted by the route for every request (UUIDv7), so a refusal carries one too. */
  correlation_id: string;
}

/**
 * Reads the intake repeats for every postback. The API passes cached ones (partners, offers) and
 * coalesced ones (cards, clicks, decisions: concurrent requests share one query).
 */
export interface PostbackReads extends AttributionReads {
  partner(sql: Sql, partnerId: string): Promise<Partner | undefined>;
  offer(sql: Sql, offerId: string): Promise<StoredOffer | undefined>;
  /** A remote offer's goals: its details are not stored, they come with its snapshots. */
  remoteGoals(sql: Sql, offerId: string): Promise<OfferDetailsDocument['goals']>;
  decision(sql: Sql, correlationId: string): Promise<PostbackDecision | undefined>;
}

const directReads: PostbackReads = {
  partner: findPartner,
  offer: findOffer,
  remoteGoals: remoteOfferGoals,
  decision: findDecision,
  click: findClick,
  servedInstance: async (sql, id) => (await findServedInstances(sql, [id]))[0],
};

/** The decisions a postback is answered 200 with. */
export const POSTBACK_RESULTS = ['accepted', 'already_recorded', 'unmapped'] as const;

export interface PostbackAnswer {
  result: (typeof POSTBACK_RESULTS)[number];
  /** The recorded conversion's correlation id (the original one for already_recorded). */
  correlation_id: string;
  attribution: { matched_by: Attribution['matched_by']; offer_id: string; offer_instance_id: string | null; svc_click_id: string | null };
  ledger_position: { partition: number; offset: string };
}

/** The partner, enabled, called from an allowed address; throws the matching rejection otherwise. */
async function checkPartner(runtime: Runtime, reads: PostbackReads, request: PostbackRequest): Promise<Partner> {
  // Ids are canonical lowercase UUIDs; anything else names no partner.
  const partner = CANONICAL_UUID.test(request.partner_id) ? await reads.partner(runtime.db, request.partner_id) : undefined;
  if (!partner) {
    const lower = request.partner_id.toLowerCase();
    const advice = lower !== request.partner_id && CANONICAL_UUID.test(lower) ? `; partner ids are lowercase: post to /v1/postback/${lower}` : '';
    throw new PostbackRejection('partner_not_found', `no partner has id ${JSON.stringify(request.partner_id)}${advice}`);
  }
  if (!partner.enabled) throw new PostbackRejection('partner_disabled', 'this partner\'s postback route is disabled');
  if (!partnerAdmits(partner, request.source_ip)) throw new PostbackRejection('source_ip_not_allowed', `${request.source_ip} is not in this partner's source allowlist`);
  return partner;
}

/** Errors of the code itself rather than of a backend it could not reach. */
const isProgrammingError = (error: unknown) =>
  error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError;

/** The event of a postback that passed intake. Pure. */
export function postbackReceivedEvent(request: PostbackRequest, attribution: Attribution, pricing: ConversionPricing, now: Date): PostbackReceived {
  const identity = postbackIdentity(request.fields)!;
  const { fields } = request;
  return {
    correlation_id: request.correlation_id,
    partner_id: request.partner_id,
    identity_kind: identity.kind,
    identity_key: identity.key,
    fingerprint: postbackFingerprint(fields),
    channel: request.channel,
    source_ip: request.source_ip,
    received_at: now.getTime(),
    event_name: fields.event_name,
    event_id: fields.event_id ?? null,
    order_id: fields.order_id ?? null,
    partner_txn_id: fields.partner_txn_id ?? null,
    amount: fields.amount ?? null,
    currency: fields.currency ?? null,
    reported_click_id: fields.svc_click_id ?? null,
    reported_tracking_id: fields.svc_tracking_id ?? null,
    reported_instance_id: fields.offer_instance_id ?? null,
    matched_by: attribution.matched_by,
    offer_id: attribution.offer_id,
    offer_instance_id: attribution.offer_instance_id,
    svc_click_id: attribution.svc_click_id,
    application_id: attribution.application_id,
    environment: attribution.environment,
    ...pricing,
  };
}

/**
 * How long the reads before the append (partner, attribution, offer) may take in all: more than the
 * 2 s an unknown fresh click or card waits for its projection, far less than a connection to a
 * Postgres that stopped answering takes to fail.
 */
const INTAKE_READS_DEADLINE_MS = 5_000;

/**
 * How long the append may take: a log that cannot take writes (too few brokers in sync, a broker
 * that stopped answering) held a postback for minutes, past any partner's timeout.
 */
const APPEND_DEADLINE_MS = 5_000;

/**
 * What the whole answer may take beyond the decision wait (POSTBACK_DECISION_TIMEOUT_MS): the
 * reads, the append and the decision wait each have a deadline, but stalls in several of them
 * (a Postgres whose sessions hang) added up to over 9 s, past a partner's 8 s timeout. Each step
 * gets what is left of the whole, so the answer comes within the decision wait plus 3 s.
 */
const ANSWER_MARGIN_MS = 3_000;
/** The decision read once the ledger has applied the postback: tried even when the budget is spent. */
const DECISION_READ_FLOOR_MS = 250;

/**
 * The intake of one postback whose fields are already valid: partner, source address,
 * attribution (the offer must be this partner's), goal and payout; then PostbackReceived is
 * appended to `postbacks` (keyed by partner + identity, so one partition's single writer sees
 * every copy of an identity in order) and the answer is the ledger projection's decision, awaited
 * through the applied watermarks. Throws PostbackRejection for every refusal.
 */
export async function receivePostback(
  runtime: Runtime,
  request: PostbackRequest,
  options: {
    now: Date;
    decisionTimeoutMs: number;
    reads?: PostbackReads;
    /**
     * When the request arrived (performance.now()): the answer's budget counts from then, so
     * the time it waited for the process before its intake began is spent from it too. Now by default.
     */
    arrivedAt?: number;
  },
): Promise<PostbackAnswer> {
  const reads = options.reads ?? directReads;
  const answerBy = (options.arrivedAt ?? performance.now()) + options.decisionTimeoutMs + ANSWER_MARGIN_MS;
  /** The smaller of `cap` and the time left of the whole answer. */
  const within = (cap: number) => Math.max(0, Math.min(cap, answerBy - performance.now()));
  let event: PostbackReceived;
  const intake = async () => {
    const partner = await checkPartner(runtime, reads, request);
    const attribution = await resolveAttribution(runtime, request.fields, options.now, reads);
    const offer = await reads.offer(runtime.db, attribution.offer_id);
    if (!offer) throw new PostbackRejection('attribution_not_found', `the attributed offer ${attribution.offer_id} is unknown`);
    if (offer.partner_id !== request.partner_id) throw new PostbackRejection('foreign_attribution', 'the attributed offer belongs to another partner');
    // A remote offer is priced by the goals of the content offer info shows for it; the payout
    // goes into the logged event, so a replay decides the same whatever snapshots come later.
    const goals = offer.details?.goals ?? (offer.kind === 'remote' ? await reads.remoteGoals(runtime.db, offer.offer_id) : []);
    return postbackReceivedEvent(request, attribution, priceConversion(partner.goal_mappings, offer.offer_id, goals, request.fields), options.now);
  };
  try {
    // Reference data that does not answer (a Postgres that stopped answering): nothing was logged, a retry can succeed.
    event = await resultWithin(intake(), within(INTAKE_READS_DEADLINE_MS), () => new Error(`the reference data did not answer within ${INTAKE_READS_DEADLINE_MS} ms`));
  } catch (error) {
    // A refusal, or a bug (500 internal_error: nothing was logged, and no retry can help it).
    if (error instanceof PostbackRejection || isProgrammingError(error)) throw error;
    // The read models could not be read: nothing was logged, a retry can succeed.
    throw Object.assign(new PostbackRejection('postback_v10_unavailable', 'postback intake cannot read its reference data right now; retry with backoff'), { cause: error });
  }
  let appended;
  const appendStarted = performance.now();
  const giveUp = new AbortController();
  let withdrawn = false;
  const appending = appendEvents(runtime, 'postbacks', [newEvent(EventType.PostbackReceived, postbackLogKey(event), event)], {
    signal: giveUp.signal,
    onWithdrawn: () => (withdrawn = true),
  });
  let late = false;
  try {
    [appended] = await resultWithin(appending, within(APPEND_DEADLINE_MS), () => ((late = true), new Error('the log did not take the postback in time')));
  } catch (error) {
    if (!late) throw Object.assign(new PostbackRejection('postback_v10_unavailable', 'the postback could not be logged; retry with backoff'), { cause: error });
    // Given up on: taken back if it was still waiting behind another write (then certainly not
    // logged, whatever the log does later). One already sent cannot be: a log that is down never
    // writes it, a hung one may once it answers, and nothing here tells the two apart.
    giveUp.abort();
    const message = withdrawn
      ? 'the log did not take the postback in time; nothing was logged, retry with backoff'
      : 'the log did not confirm the postback in time; it may still be recorded, so retry with backoff, the same identity and the same payload';
    throw Object.assign(new PostbackRejection('postback_v10_unavailable', message), { cause: error });
  }
  const deferred = () => new PostbackRejection('postback_intake_unavailable', 'the postback is logged but not decided yet; retry with the same identity to get its decision', true);
  // From here on the postback is in the log: whatever fails, the answer says so (the retry gets its decision).
  const applied = await runtime
    .watermarks()
    .then((watermarks) => watermarks.awaitApplied(ledgerProjection.name, [appended!], within(options.decisionTimeoutMs)))
    .catch(() => false);
  if (!applied) throw deferred();
  runtime.metrics.readAfterWrite.observe({ projection: ledgerProjection.name }, (performance.now() - appendStarted) / 1000);
  const decision = await resultWithin(reads.decision(runtime.db, request.correlation_id), Math.max(DECISION_READ_FLOOR_MS, within(INTAKE_READS_DEADLINE_MS)), () => new Error('no decision read in time')).catch(() => undefined);
  if (!decision) throw deferred();
  if (decision.decision === 'identity_conflict') {
    throw new PostbackRejection('identity_conflict', `this identity is recorded (correlation id ${decision.original_correlation_id}) with a different payload`, true);
  }
  return {
    result: decision.decision,
    correlation_id: decision.original_correlation_id,
    attribution: { matched_by: decision.matched_by as Attribution['matched_by'], offer_id: decision.offer_id, offer_instance_id: decision.offer_instance_id, svc_click_id: decision.svc_click_id },
    ledger_position: { partition: decision.ledger_partition, offset: decision.ledger_offset },
  };
}
