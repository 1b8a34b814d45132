import { invalidatedCache } from '../../../../platform/cache/invalidated-cache.js';
import type { Sql } from '../../../../platform/db/db.js';
import type { Watermarks } from '../../../../platform/projection/watermarks.js';
import { findPartner, type Partner } from '../../../../projections/partners/queries.js';

/**
 * Partners as the postback intake reads them on every request, emptied by every commit of the
 * `partners` projection (and by a notification gap), so a disabled partner or a changed
 * allowlist takes effect on the first postback after its event is applied. Unknown ids are not kept.
 */
export function openPartnerCache(watermarks: Pick<Watermarks, 'onApplied' | 'hearing'>, maxEntries = 10_000) {
  const cache = invalidatedCache<string, Partner | undefined>({ maxEntries, keepWhile: () => watermarks.hearing() });
  const unsubscribe = watermarks.onApplied((position) => {
    if (!position || position.projection === 'partners') cache.invalidate();
  });
  return {
    get: (sql: Sql, partnerId: string) => cache.get(partnerId, (id) => findPartner(sql, id), (partner) => partner !== undefined),
    close: unsubscribe,
  };
}
