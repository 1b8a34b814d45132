import type { Runtime } from '../../platform/runtime.js';
import type { TrackedLinkRef } from '../../projections/offers/links/parse-link.js';
import { awaitLinkHolders, findLinkTarget, type ClickTarget } from '../../projections/offers/links/link-target.js';

/**
 * The target of a link, or undefined when no link has this code; a miss waits for the link
 * holders (awaitLinkHolders) and looks again. Throws ReadModelsBehindError when they do not catch
 * up in time: "retry", never a wrong 404.
 */
export async function resolveClickTarget(runtime: Runtime, link: TrackedLinkRef, waitMs: number): Promise<ClickTarget | undefined> {
  const found = await findLinkTarget(runtime.db, link);
  if (found) return found;
  await awaitLinkHolders(runtime, link, waitMs);
  return findLinkTarget(runtime.db, link);
}
