import type { Runtime } from '../../platform/runtime.js';
import type { StoredOffer } from '../../projections/offers/queries.js';
import type { TrackedLinkRef } from '../../projections/offers/links/parse-link.js';
import { findOffer } from '../../projections/offers/queries.js';
import { awaitLinkHolders, findLinkTarget, type ClickTarget } from '../../projections/offers/links/link-target.js';

/** The reads a link open makes; the link origin shares them among concurrent opens (routes/links). */
export interface LinkReads {
  /** The link's target; undefined when no link has this code (findLinkTarget). */
  target(link: TrackedLinkRef): Promise<ClickTarget | undefined>;
  /** The stored offer (lifecycle status and flags); undefined when unknown. */
  offer(offerId: string): Promise<StoredOffer | undefined>;
}

/**
 * The target of a link, or undefined when no link has this code; a miss waits for the link
 * holders (awaitLinkHolders) and looks again. Throws ReadModelsBehindError when they do not catch
 * up in time: "retry", never a wrong 404.
 */
export async function resolveClickTarget(runtime: Runtime, link: TrackedLinkRef, waitMs: number, reads: Pick<LinkReads, 'target'> = directLinkReads(runtime)): Promise<ClickTarget | undefined> {
  const found = await reads.target(link);
  if (found) return found;
  await awaitLinkHolders(runtime, link, waitMs);
  return reads.target(link);
}

/** One statement per read, each as fresh as the read models. */
export function directLinkReads(runtime: Runtime): LinkReads {
  return {
    target: (link) => findLinkTarget(runtime.db, link),
    offer: (offerId) => findOffer(runtime.db, offerId),
  };
}
