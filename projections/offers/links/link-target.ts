import type { Sql } from '../../../platform/db/db.js';
import { awaitCaughtUp } from '../../../platform/projection/catch-up.js';
import type { Runtime } from '../../../platform/runtime.js';
import type { TrackedLinkRef, TrackedLinkShape } from './parse-link.js';
import { findTrackedLinkTarget } from './queries.js';
import { offersProjection } from '../projection.js';
import { servesProjection } from '../../serves/projection.js';
import { findServeByLinkCode, findServedInstances } from '../../serves/queries.js';
import type { ServedInstanceRow } from '../../serves/evolve.js';
import type { LinkClicked } from '../../../schemas/generated/events.js';

/**
 * What a link on the link origin opens: its offer, card and application, and where it leads.
 * Read across the serves (a card's minted short code) and the offers' registered links; the link
 * origin, the offer info route and postback attribution all resolve a link here, so it names the
 * same offer everywhere.
 */
export interface ClickTarget {
  shape: TrackedLinkShape;
  /** svc_tracking_id: the link's identifying path segment. */
  code: string;
  offer_id: string;
  offer_instance_id: string | null;
  application_id: string | null;
  environment: LinkClicked['environment'];
  /** Frozen at serve time, or the registered link's target_url; null when it leads nowhere. */
  destination: string | null;
}

/**
 * A card's short link first (codes minted at serve time), then a registered link of the same
 * shape. Reads only, no waiting; the offer info route resolves `offerurl` with it too, so a link
 * names the same offer there as on the link origin. `serveByCode` reads the card of a code (the
 * link origin shares one statement among concurrent opens).
 */
export async function findLinkTarget(
  sql: Sql,
  link: TrackedLinkRef,
  serveByCode: (code: string) => Promise<ServedInstanceRow | undefined> = (code) => findServeByLinkCode(sql, code),
): Promise<ClickTarget | undefined> {
  if (link.shape === 'short_code') {
    const serve = await serveByCode(link.code);
    if (serve) {
      const { offer_id, offer_instance_id, application_id, environment, destination_url } = serve;
      return { shape: link.shape, code: link.code, offer_id, offer_instance_id, application_id, environment, destination: destination_url };
    }
  }
  const registered = await findTrackedLinkTarget(sql, link);
  if (!registered) return undefined;
  // An instance_uuid link is its instance (the command stores the code as offer_instance_id).
  const offerInstanceId = registered.offer_instance_id ?? (link.shape === 'instance_uuid' ? link.code : null);
  // A link naming a served card is that card's (link:register checks its offer and application):
  // its clicks and conversions take the card's application and environment, so a test card's stay
  // test ones and the card's own id sent beside the link names the same card.
  const [card] = offerInstanceId === null ? [] : await findServedInstances(sql, [offerInstanceId]);
  return {
    shape: link.shape,
    code: link.code,
    offer_id: registered.offer_id,
    offer_instance_id: offerInstanceId,
    application_id: card?.application_id ?? registered.application_id,
    // Other registered links are issued by operators for production traffic.
    environment: card?.environment ?? 'live',
    destination: registered.target_url,
  };
}

/**
 * Waits (up to `waitMs`) for the projections that hold links of this shape to reach the log's
 * current end: a card served a moment ago may not be projected yet. Throws ReadModelsBehindError
 * when they do not get there in time.
 */
export function awaitLinkHolders(runtime: Runtime, link: TrackedLinkRef, waitMs: number): Promise<void> {
  return awaitCaughtUp(runtime, link.shape === 'short_code' ? [servesProjection, offersProjection] : [offersProjection], waitMs);
}
