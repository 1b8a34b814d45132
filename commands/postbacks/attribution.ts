import { ReadModelsBehindError, awaitCaughtUp, lastSeenAtEnd } from '../../platform/projection/catch-up.js';
import { mayBeUnapplied } from '../../platform/ids/recently-minted.js';
import type { Runtime } from '../../platform/runtime.js';
import { clicksProjection } from '../../projections/clicks/projection.js';
import type { ClickRow } from '../../projections/clicks/evolve.js';
import type { Sql } from '../../platform/db/db.js';
import { shapeOfCode } from '../../projections/offers/links/parse-link.js';
import { offersProjection } from '../../projections/offers/projection.js';
import { servesProjection } from '../../projections/serves/projection.js';
import type { ServedInstanceRow } from '../../projections/serves/evolve.js';
import type { PostbackReceived } from '../../schemas/generated/events.js';
import { findLinkTarget } from '../../projections/offers/links/link-target.js';
import { ATTRIBUTION_FIELDS, type PostbackFields } from './fields.js';
import { PostbackRejection } from './rejections.js';

export type AttributionField = (typeof ATTRIBUTION_FIELDS)[number];

/** The card a postback is attributed to. */
export interface Attribution {
  matched_by: AttributionField;
  offer_id: string;
  offer_instance_id: string | null;
  svc_click_id: string | null;
  application_id: string | null;
  environment: PostbackReceived['environment'];
}

type Found = Omit<Attribution, 'matched_by'>;

/** How attribution reads clicks and cards (by id; undefined when unknown). */
export interface AttributionReads {
  click(sql: Sql, clickId: string): Promise<ClickRow | undefined>;
  servedInstance(sql: Sql, instanceId: string): Promise<ServedInstanceRow | undefined>;
}

/** How long a just-minted unknown id waits for its read model to reach the log's end. */
const CATCH_UP_WAIT_MS = 2_000;

async function lookUp(runtime: Runtime, reads: AttributionReads, field: AttributionField, id: string): Promise<Found | undefined> {
  if (field === 'svc_click_id') {
    const click = await reads.click(runtime.db, id);
    return click && { offer_id: click.offer_id, offer_instance_id: click.offer_instance_id, svc_click_id: click.svc_click_id, application_id: click.application_id, environment: click.environment };
  }
  if (field === 'offer_instance_id') {
    const serve = await reads.servedInstance(runtime.db, id);
    if (serve) return { offer_id: serve.offer_id, offer_instance_id: serve.offer_instance_id, svc_click_id: null, application_id: serve.application_id, environment: serve.environment };
    // A registered root-instance link is an instance too: its link fills {offer_instance_id} with
    // its UUID and its clicks report it, so a partner that sends that id back is attributed.
    const registered = await findLinkTarget(runtime.db, { shape: 'instance_uuid', code: id });
    return registered?.offer_instance_id === id ? { offer_id: registered.offer_id, offer_instance_id: id, svc_click_id: null, application_id: registered.application_id, environment: registered.environment } : undefined;
  }
  const shape = shapeOfCode(id);
  const target = shape && (await findLinkTarget(runtime.db, { shape, code: id }));
  return target && { offer_id: target.offer_id, offer_instance_id: target.offer_instance_id, svc_click_id: null, application_id: target.application_id, environment: target.environment };
}

/** The read models that hold each kind of id. */
const holders = { svc_click_id: [clicksProjection], offer_instance_id: [servesProjection, offersProjection], svc_tracking_id: [servesProjection, offersProjection] };

/**
 * Resolves every attribution id sent to its card. They must all name the same card (the same
 * offer, served card, application and environment), else attribution_conflict. An unknown id
 * that may not be applied yet (minted shortly before its read model was last seen at the log's
 * end, or after) waits for the read model to catch up; still unknown, it is a retryable 503, and
 * any other unknown id is attribution_not_found (not ours, or minted well before that end). An
 * unknown link code (a card's short link carries no time) waits the same way, and is
 * attribution_not_found once the read models have caught up, a retryable 503 when they could not.
 */
export async function resolveAttribution(runtime: Runtime, fields: PostbackFields, now: Date, reads: AttributionReads): Promise<Attribution> {
  const sent = ATTRIBUTION_FIELDS.filter((field) => fields[field] !== undefined).map((field) => ({ field, id: fields[field]! }));
  let found = await Promise.all(sent.map(({ field, id }) => lookUp(runtime, reads, field, id)));
  const missing = () => sent.filter((_, index) => !found[index]);
  if (missing().length > 0) {
    const mayBeUnappliedYet = ({ field, id }: (typeof sent)[number]) =>
      (field === 'svc_tracking_id' ? shapeOfCode(id) === 'instance_uuid' : true) && mayBeUnapplied(id, lastSeenAtEnd(runtime, holders[field]), now.getTime());
    const recent = missing().filter(mayBeUnappliedYet);
    // Link codes other than an instance's UUID carry no time.
    const codes = missing().filter(({ field, id }) => {
      const shape = field === 'svc_tracking_id' ? shapeOfCode(id) : undefined;
      return shape !== undefined && shape !== 'instance_uuid';
    });
    const waiting = [...recent, ...codes];
    let caughtUp = false;
    if (waiting.length > 0) {
      try {
        await awaitCaughtUp(runtime, [...new Set(waiting.flatMap(({ field }) => holders[field]))], CATCH_UP_WAIT_MS);
        caughtUp = true;
      } catch (error) {
        if (!(error instanceof ReadModelsBehindError)) throw error;
      }
      found = await Promise.all(sent.map(({ field, id }, index) => found[index] ?? lookUp(runtime, reads, field, id)));
    }
    const unknown = missing();
    if (unknown.length > 0) {
      const { field, id } = unknown[0]!;
      // Judged again: a wait that reached the log's end settles every id minted well before it.
      if (unknown.some((entry) => recent.includes(entry) && mayBeUnappliedYet(entry))) {
        throw new PostbackRejection('postback_v10_unavailable', `${field} ${id} was minted recently and is not readable yet; retry shortly`);
      }
      if (!caughtUp && unknown.some((entry) => codes.includes(entry))) {
        throw new PostbackRejection('postback_v10_unavailable', `the read models are behind the log, so ${field} ${id} may name a card served moments ago; retry shortly`);
      }
      throw new PostbackRejection('attribution_not_found', `${field}: no ${field === 'svc_tracking_id' ? 'tracked link' : field === 'svc_click_id' ? 'click' : 'served card'} has this id`);
    }
  }
  const cards = found as Found[];
  const first = cards[0]!;
  for (const [index, card] of cards.entries()) {
    const differs = differenceOf(first, card);
    if (differs) throw new PostbackRejection('attribution_conflict', `${sent[0]!.field} and ${sent[index]!.field} name different cards (another ${differs})`);
  }
  // Only a click knows its click id; everything else is the same card's.
  return { matched_by: sent[0]!.field, ...first, svc_click_id: cards.find((card) => card.svc_click_id !== null)?.svc_click_id ?? null };
}

/**
 * What tells two resolved ids apart, or undefined when they name the same card. A link that is no
 * card's (a static or registered link) names no card, so it never matches a card's id: taking the
 * card's application or environment from one id and the rest from the other paid the wrong
 * application, or counted a test card's conversion as live.
 */
function differenceOf(a: Found, b: Found): string | undefined {
  if (a.offer_id !== b.offer_id) return 'offer';
  if (a.offer_instance_id !== b.offer_instance_id) return 'served card';
  if (a.application_id !== b.application_id) return 'application';
  if (a.environment !== b.environment) return 'environment';
  return undefined;
}
